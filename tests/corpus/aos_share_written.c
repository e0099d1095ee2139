/* aos_share_written.c - a `share` hint naming an array of structures the kernel writes (a
 * transposed accumulation into one field): `acc` is staged as one tile for the field `re`
 * (AoS -> SoA), loaded first (the kernel reads it), updated in shared memory and stored back
 * field by field; the field `im`, never referenced, keeps its values in global memory. */
#include "corpus_common.h"

#ifndef N
#define N 67
#endif
#ifndef M
#define M 45
#endif

typedef struct {
    float re, im;
} cpx;

void accumulate_t(cpx acc[M][N], const float x[N][M], float w)
{
#pragma acc share(acc[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent copy(acc[0:M][0:N]) copyin(x[0:N][0:M])
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < M; j++)
            acc[j][i].re += w * x[i][j];
    }
}

int main(void)
{
    static float x[N][M];
    static cpx acc[M][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            x[i][j] = (float)((i * 7 + j * 3) % 19) * 0.25f - 2.0f;
    for (int j = 0; j < M; j++)
        for (int i = 0; i < N; i++) {
            acc[j][i].re = (float)((i + j) % 5);
            acc[j][i].im = -(float)((i * j) % 3);
        }
    accumulate_t(acc, x, 1.5f);
    dump_float("acc", &acc[0][0].re, 2L * M * N);
    return 0;
}
