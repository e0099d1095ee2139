/* share_transpose_rect.c - share(...:coalesce) on a rectangular 61 x 101
 * transpose; the transposed tile is partial in both directions. */
#include "corpus_common.h"

#ifndef N
#define N 61
#endif
#ifndef M
#define M 101
#endif

void transpose_scale(float out[M][N], float in[N][M], float s)
{
#pragma acc share(in[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent copyin(in[0:N][0:M]) copyout(out[0:M][0:N])
    for (int i = 0; i < M; i++) {
#pragma acc loop independent
        for (int j = 0; j < N; j++)
            out[i][j] = s * in[j][i];
    }
}

int main(void)
{
    static float in[N][M], out[M][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            in[i][j] = (float)(i * M + j);
    transpose_scale(out, in, 0.5f);
    dump_float("out", &out[0][0], (long)M * N);
    return 0;
}
