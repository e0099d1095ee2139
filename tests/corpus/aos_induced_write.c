/* aos_induced_write.c - arrays of structures written in place without `share` hints (the
 * engine induces the staging), in the style of the published OpenACC suites: a complex
 * matrix-vector product accumulated into `y` in place (`y[i].re += ...` in the strip-mined
 * loop; `y` staged as one written tile per field, loaded first and stored back field by field)
 * and the same product over interleaved pairs (`u[2*i] += ...`, `u[2*i + 1] += ...`, one
 * written tile per residue), inside a `data` region. */
#include <stdio.h>
#include "corpus_common.h"

#ifndef N
#define N 256
#endif
#ifndef M
#define M 128
#endif
#define REAL float

typedef struct {
    REAL re, im;
} cpx;

void cmv_acc(cpx y[N], cpx A[N][M], cpx x[M])
{
#pragma acc kernels loop independent present(y[0:N], A[0:N][0:M], x[0:M])
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < M; j++) {
            y[i].re += A[i][j].re * x[j].re - A[i][j].im * x[j].im;
            y[i].im += A[i][j].re * x[j].im + A[i][j].im * x[j].re;
        }
    }
}

void imv_acc(REAL *restrict u, const REAL *restrict B, const REAL *restrict v)
{
#pragma acc kernels loop independent present(u[0:2 * N], B[0:N * M], v[0:2 * M])
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < M; k++) {
            u[2 * i] += B[i * M + k] * v[2 * k] - B[i * M + k] * v[2 * k + 1];
            u[2 * i + 1] += B[i * M + k] * v[2 * k + 1];
        }
    }
}

int main(void)
{
    static cpx y[N], A[N][M], x[M];
    static REAL u[2 * N], B[N * M], v[2 * M];
    for (int i = 0; i < N; i++) {
        y[i].re = (REAL)(i % 7) - 3.0f;
        y[i].im = (REAL)(i % 3) * 0.5f;
        u[2 * i] = (REAL)(i % 5);
        u[2 * i + 1] = -(REAL)(i % 4);
        for (int j = 0; j < M; j++) {
            A[i][j].re = (REAL)((i + 3 * j) % 17) * 0.125f - 1.0f;
            A[i][j].im = (REAL)((2 * i + j) % 7) * 0.25f;
            B[i * M + j] = (REAL)((i * 7 + j) % 9) * 0.125f;
        }
    }
    for (int j = 0; j < M; j++) {
        x[j].re = (REAL)(j % 6) - 2.5f;
        x[j].im = (REAL)(j % 3) * 0.5f;
        v[2 * j] = (REAL)(j % 4) * 0.5f;
        v[2 * j + 1] = 1.0f - (REAL)(j % 5) * 0.25f;
    }
#pragma acc data copy(y[0:N], u[0:2 * N]) copyin(A[0:N][0:M], x[0:M], B[0:N * M], v[0:2 * M])
    {
        cmv_acc(y, A, x);
        imv_acc(u, B, v);
        cmv_acc(y, A, x);
    }
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += y[i].re - 0.5 * y[i].im + u[2 * i] + 0.25 * u[2 * i + 1];
    printf("checksum %.6e\n", sum);
    dump_float("y", &y[0].re, 2L * N);
    dump_float("u", u, 2L * N);
    return 0;
}
