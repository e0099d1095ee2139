/* share_write_triangle.c - a transposed write over a triangular grid
 * (`for (j = i; …)`): the written tile covers elements no iteration writes,
 * so it must be loaded before and stored back whole. */
#include "corpus_common.h"

#ifndef N
#define N 77
#endif

void lower_t(float out[N][N], const float in[N][N])
{
#pragma acc share(out[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = i; j < N; j++)
            out[j][i] = in[i][j] * 2.0f + 1.0f;
    }
}

int main(void)
{
    static float in[N][N], out[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            in[i][j] = (float)((i * 13 + j * 5) % 17);
            out[i][j] = -3.0f - (float)i;
        }
    lower_t(out, in);
    dump_float("out", &out[0][0], (long)N * N);
    return 0;
}
