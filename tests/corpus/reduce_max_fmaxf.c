/* reduce_max_fmaxf.c - `reduction(max:err)` with fmaxf/fabsf over a
 * collapse(2) nest on fixed-size 2-D arrays (max is order-independent). */
#include <math.h>
#include "corpus_common.h"

#ifndef N
#define N 61
#endif
#ifndef M
#define M 101
#endif

static float A[N][M], B[N][M];

float max_abs_diff(float a[N][M], float b[N][M])
{
    float err = 0.0f;
#pragma acc parallel loop collapse(2) reduction(max:err) copyin(a[0:N][0:M], b[0:N][0:M])
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            err = fmaxf(err, fabsf(a[i][j] - b[i][j]));
    return err;
}

int main(void)
{
    float res[1];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            A[i][j] = INIT2(i, j);
            B[i][j] = (float)((i * 5 + j * 11) % 23) / 23.0f;
        }
    res[0] = max_abs_diff(A, B);
    dump_float("err", res, 1);
    return 0;
}
