/* static_globals.c - file-scope `static` arrays used directly by the
 * annotated function (no array parameters), inside a `kernels` region that
 * holds two loop nests. */
#include "corpus_common.h"

#ifndef N
#define N 101
#endif

static float A[N][N];
static float B[N][N];
static float rowmean[N];

void smooth_and_mean(void)
{
    int i, j;
#pragma acc kernels copyin(A) copyout(B, rowmean)
    {
#pragma acc loop independent
        for (i = 0; i < N; i++) {
#pragma acc loop independent
            for (j = 0; j < N; j++)
                B[i][j] = 0.5f * A[i][j] + 0.5f * A[N - 1 - i][j];
        }
#pragma acc loop independent
        for (i = 0; i < N; i++) {
            float s = 0.0f;
#pragma acc loop seq
            for (j = 0; j < N; j++)
                s += A[i][j];
            rowmean[i] = s / (float)N;
        }
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = INIT2(i, j);
    smooth_and_mean();
    dump_float("B", &B[0][0], (long)N * N);
    dump_float("rowmean", rowmean, N);
    return 0;
}
