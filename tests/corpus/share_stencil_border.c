/* share_stencil_border.c - share hint with a 1-element halo on a stencil
 * whose loops cover the whole grid and copy the border in an if/else: the
 * staged tile must not read outside the array at the edges. */
#include "corpus_common.h"

#ifndef N
#define N 101
#endif
#ifndef M
#define M 257
#endif

void smooth(float out[N][M], float in[N][M])
{
#pragma acc share(in[TB_Y+2][TB_X+2])
#pragma acc parallel loop copyin(in[0:N][0:M]) copyout(out[0:N][0:M])
    for (int i = 0; i < N; i++) {
#pragma acc loop
        for (int j = 0; j < M; j++) {
            if (i == 0 || i == N - 1 || j == 0 || j == M - 1) {
                out[i][j] = in[i][j];
            } else {
                out[i][j] = 0.5f * in[i][j]
                          + 0.125f * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
            }
        }
    }
}

int main(void)
{
    static float in[N][M], out[N][M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            in[i][j] = INIT2(i, j) + (float)(i % 3);
    smooth(out, in);
    dump_float("out", &out[0][0], (long)N * M);
    return 0;
}
