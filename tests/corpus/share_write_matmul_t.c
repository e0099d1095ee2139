/* share_write_matmul_t.c - C^T = A*B: A and B are staged strip by strip along k
 * and the transposed result is written through a shared tile, so a kernel
 * holds both read tiles (strip-mined) and a written tile (stored back once). */
#include "corpus_common.h"

#ifndef N
#define N 70
#endif
#ifndef K
#define K 45
#endif

void matmul_t(float ct[N][N], const float a[N][K], const float b[K][N])
{
#pragma acc share(a[TB_Y][*], b[*][TB_X], ct[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < N; j++) {
            float s = 0.0f;
            for (int k = 0; k < K; k++)
                s += a[i][k] * b[k][j];
            ct[j][i] = s;
        }
    }
}

int main(void)
{
    static float a[N][K], b[K][N], ct[N][N];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < K; k++)
            a[i][k] = (float)((i + 2 * k) % 11) * 0.125f;
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
            b[k][j] = (float)((3 * k + j) % 7) - 3.0f;
    matmul_t(ct, a, b);
    dump_float("ct", &ct[0][0], (long)N * N);
    return 0;
}
