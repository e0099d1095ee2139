/* mv_vector.c - y = A * x, float, N x M (default 4096 x 4096), the dot product a vector loop.
 * As mv.c, but the inner loop is written for a GPU: `loop vector reduction(+:sum)`, so the
 * compiler may spread the dot product of each row over the lanes of a work-group (and reorder
 * its sum). mv.c: one iteration of the parallel loop per row, a sequential
 * dot product over the row (Rodinia/PolyBench mvt style). */
#include "five.h"

#ifndef N
#define N 4096
#endif
#ifndef M
#define M 4096
#endif

static void init(float A[N][M], float x[M], float y[N])
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f;
    for (j = 0; j < M; j++)
        x[j] = (float)((j * 5) % 11) / 11.0f - 0.5f;
    for (i = 0; i < N; i++)
        y[i] = 0.0f;
}

static double kernel_mv(float y[N], float A[N][M], float x[M])
{
    int i, j;
    double t0 = five_now();
#pragma scop
#pragma acc data copyin(A[0:N][0:M], x[0:M]) copyout(y[0:N])
    {
#pragma acc parallel loop
        for (i = 0; i < N; i++) {
            float sum = 0.0f;
#pragma acc loop vector reduction(+:sum)
            for (j = 0; j < M; j++)
                sum += A[i][j] * x[j];
            y[i] = sum;
        }
    }
#pragma endscop
    return five_now() - t0;
}

int main(void)
{
    float (*A)[M] = five_alloc(sizeof(float[N][M]));
    float *x = five_alloc(sizeof(float) * M);
    float *y = five_alloc(sizeof(float) * N);
    int r;

    for (r = 0; r < REPS; r++) {
        init(A, x, y);
        five_time(kernel_mv(y, A, x));
    }
    five_checksum_float(y, (long)N);
    five_dump_float("y", y, (long)N);
    free(A);
    free(x);
    free(y);
    return 0;
}
