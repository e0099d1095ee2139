/* mv.c - matrix-vector product y = A * x (float).
 * One thread per row i (mapped to x): consecutive threads read A[i][j] one
 * row apart, which is uncoalesced; every thread reads the same x[j].  The
 * hint stages x in shared memory and transposes the TB_X-row band of A
 * through shared memory so the global loads coalesce. */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 2048           /* rows */
#endif
#ifndef M
#define M 1024           /* columns */
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

void mv(float y[N], float A[N][M], float x[M])
{
    int i, j;
#pragma acc share(x[*], A[TB_X][*]:coalesce)
#pragma acc kernels loop independent copyin(A[0:N][0:M], x[0:M]) copyout(y[0:N])
    for (i = 0; i < N; i++) {
        float sum = 0.0f;
#pragma acc loop seq
        for (j = 0; j < M; j++)
            sum += A[i][j] * x[j];
        y[i] = sum;
    }
}

int main(void)
{
    float (*A)[M] = malloc(sizeof(float[N][M]));
    float *x = malloc(sizeof(float) * M);
    float *y = malloc(sizeof(float) * N);
    int i, j;

    if (!A || !x || !y)
        return 1;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f;
    for (j = 0; j < M; j++)
        x[j] = (float)((j * 5) % 11) / 11.0f - 0.5f;
    for (i = 0; i < N; i++)
        y[i] = 0.0f;

    mv(y, A, x);

    dump_float("y", y, N);
    free(A);
    free(x);
    free(y);
    return 0;
}
