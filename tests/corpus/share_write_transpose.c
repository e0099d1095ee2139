/* share_write_transpose.c - a transpose whose *output* walks a column:
 * share(out[TB_X][TB_Y]:coalesce) writes it through a shared tile, stored back
 * row by row. 75 x 53 leaves partial tiles in both directions. */
#include "corpus_common.h"

#ifndef N
#define N 75
#endif
#ifndef M
#define M 53
#endif

void transpose_out(float out[M][N], const float in[N][M])
{
#pragma acc share(out[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent copyin(in[0:N][0:M]) copyout(out[0:M][0:N])
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < M; j++)
            out[j][i] = in[i][j] * 0.25f + (float)j;
    }
}

int main(void)
{
    static float in[N][M], out[M][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            in[i][j] = (float)((i * 31 + j * 17) % 97) - 40.0f;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            out[i][j] = -1.0f;
    transpose_out(out, in);
    dump_float("out", &out[0][0], (long)M * N);
    return 0;
}
