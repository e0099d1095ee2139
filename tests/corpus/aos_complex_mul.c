/* aos_complex_mul.c - complex numbers as an array of structures (AoS): an element-wise
 * complex multiply-add and a complex matrix-vector product y = A x over `typedef struct
 * { float re, im; } cpx;`, inside a data region, in the style of the published OpenACC suites.
 * Struct member access in kernels: the fields are read and written as `a[i].re`, `A[i][j].im`;
 * the kernels declare `cpx` as the host does and index the host's bytes. */
#include <stdio.h>
#include "corpus_common.h"

#ifndef N
#define N 300
#endif
#ifndef M
#define M 200
#endif

typedef struct {
    float re, im;
} cpx;

/* z[i] = z[i] + a[i] * b[i] */
void cmul_add(int n, cpx *restrict z, const cpx *restrict a, const cpx *restrict b)
{
#pragma acc parallel loop present(z[0:n], a[0:n], b[0:n])
    for (int i = 0; i < n; i++) {
        float re = a[i].re * b[i].re - a[i].im * b[i].im;
        float im = a[i].re * b[i].im + a[i].im * b[i].re;
        z[i].re += re;
        z[i].im = z[i].im + im;
    }
}

/* y = A x, A of N rows and M columns */
void cmv(cpx y[N], cpx A[N][M], cpx x[M])
{
#pragma acc kernels loop independent present(y[0:N], A[0:N][0:M], x[0:M])
    for (int i = 0; i < N; i++) {
        float sr = 0.0f, si = 0.0f;
        for (int j = 0; j < M; j++) {
            sr += A[i][j].re * x[j].re - A[i][j].im * x[j].im;
            si += A[i][j].re * x[j].im + A[i][j].im * x[j].re;
        }
        y[i].re = sr;
        y[i].im = si;
    }
}

int main(void)
{
    static cpx a[N], b[N], z[N], A[N][M], x[M], y[N];
    for (int i = 0; i < N; i++) {
        a[i].re = (float)((i * 7) % 13) - 6.0f;
        a[i].im = (float)((i * 5) % 11) * 0.25f;
        b[i].re = (float)(i % 9) * 0.5f;
        b[i].im = 1.0f - (float)(i % 4);
        z[i].re = (float)(i % 3);
        z[i].im = -(float)(i % 5);
        for (int j = 0; j < M; j++) {
            A[i][j].re = (float)((i + 3 * j) % 17) * 0.125f - 1.0f;
            A[i][j].im = (float)((2 * i + j) % 7) * 0.25f;
        }
    }
    for (int j = 0; j < M; j++) {
        x[j].re = (float)(j % 6) - 2.5f;
        x[j].im = (float)(j % 3) * 0.5f;
    }
#pragma acc data copyin(a[0:N], b[0:N], A[0:N][0:M], x[0:M]) copy(z[0:N]) copyout(y[0:N])
    {
        cmul_add(N, z, a, b);
        cmv(y, A, x);
    }
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += (i % 7 + 1) * (double)z[i].re + (i % 5 + 1) * (double)z[i].im + y[i].re - 0.5 * y[i].im;
    printf("checksum %.6e\n", sum);
    dump_float("z", &z[0].re, 2L * N);
    dump_float("y", &y[0].re, 2L * N);
    return 0;
}
