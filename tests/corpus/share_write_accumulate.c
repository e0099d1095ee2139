/* share_write_accumulate.c - read-modify-write of a transposed output
 * (out[j][i] += ...) and a conditional transposed store: the written tiles are
 * loaded first, updated in shared memory and stored back; elements the
 * condition skips keep their old values. */
#include "corpus_common.h"

#ifndef N
#define N 67
#endif
#ifndef M
#define M 45
#endif

void accumulate_t(int n, int m, float acc[m][n], const float x[n][m], float w)
{
#pragma acc share(acc[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
    for (int i = 0; i < n; i++) {
#pragma acc loop independent
        for (int j = 0; j < m; j++)
            acc[j][i] += w * x[i][j];
    }
}

void clip_t(float out[M][N], const float x[N][M])
{
#pragma acc share(out[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < M; j++) {
            if (x[i][j] > 10.0f)
                out[j][i] = x[i][j] - 10.0f;
        }
    }
}

int main(void)
{
    static float x[N][M], acc[M][N], out[M][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            x[i][j] = (float)((i * 13 + j * 7) % 41) - 5.0f;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            acc[i][j] = (float)(i - j);
            out[i][j] = 100.0f + (float)i;
        }
    accumulate_t(N, M, acc, x, 0.5f);
    accumulate_t(N, M, acc, x, -1.5f);
    clip_t(out, x);
    dump_float("acc", &acc[0][0], (long)M * N);
    dump_float("out", &out[0][0], (long)M * N);
    return 0;
}
