/* planted: host
 * from: examples/jacobi.c
 * flags: 
 * change: a progress print of `A` inside the data region, without `update self` */
/* jacobi.c - 2-D Jacobi relaxation, 5-point average, fixed number of sweeps.
 * Two kernels per sweep inside one data region: B = stencil(A) on the
 * interior, then A = B on the interior. */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 512
#endif
#ifndef TSTEPS
#define TSTEPS 20
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

void jacobi_2d(int tsteps, float A[N][N], float B[N][N])
{
    int t, i, j;
#pragma acc data copy(A[0:N][0:N]) create(B[0:N][0:N])
    {
        for (t = 0; t < tsteps; t++) {
#pragma acc kernels loop independent
            for (i = 1; i < N - 1; i++) {
#pragma acc loop independent
                for (j = 1; j < N - 1; j++)
                    B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
            }
#pragma acc kernels loop independent
            for (i = 1; i < N - 1; i++) {
#pragma acc loop independent
                for (j = 1; j < N - 1; j++)
                    A[i][j] = B[i][j];
            }
            printf("step %d: %f\n", t, A[N / 2][N / 2]);
        }
    }
}

int main(void)
{
    float (*A)[N] = malloc(sizeof(float[N][N]));
    float (*B)[N] = malloc(sizeof(float[N][N]));
    int i, j;

    if (!A || !B)
        return 1;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            A[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f;
            B[i][j] = 0.0f;
        }

    jacobi_2d(TSTEPS, A, B);

    dump_float("A", &A[0][0], (long)N * N);
    free(A);
    free(B);
    return 0;
}
