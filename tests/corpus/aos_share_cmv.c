/* aos_share_cmv.c - a complex matrix-vector product y = A x over an array of structures
 * (`typedef struct { float re, im; } cpx;`), with the vector staged in shared memory by a
 * `share` hint naming the struct array: staged as one tile per field (AoS -> SoA), whose reads
 * by every work-item of a block are broadcasts of one word per field instead of the struct's
 * stride. A second kernel, a three-point stencil over a vector of structs, stages a tile with
 * a halo per field. */
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

/* y = A x, A of N rows and M columns: a work-item walks its row, so the rows of a block are
 * staged per strip of columns (read by column from shared memory), and so is x */
void cmv(cpx y[N], cpx A[N][M], cpx x[M])
{
#pragma acc share(x[*], A[64][*]:coalesce)
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

/* z[i] = w[i] + w[i + 1] + w[i + 2] (the imaginary parts weighted): a three-point stencil of structs */
void csum3(cpx z[N], cpx w[N + 2])
{
#pragma acc share(w[TB_X + 2])
#pragma acc kernels loop independent present(z[0:N], w[0:N + 2])
    for (int i = 0; i < N; i++) {
        z[i].re = w[i].re + w[i + 1].re + w[i + 2].re;
        z[i].im = w[i].im - w[i + 1].im + 0.5f * w[i + 2].im;
    }
}

int main(void)
{
    static cpx A[N][M], x[M], y[N], z[N], w[N + 2];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            A[i][j].re = (float)((i + 3 * j) % 17) * 0.125f - 1.0f;
            A[i][j].im = (float)((2 * i + j) % 7) * 0.25f;
        }
    for (int j = 0; j < M; j++) {
        x[j].re = (float)(j % 6) - 2.5f;
        x[j].im = (float)(j % 3) * 0.5f;
    }
    for (int i = 0; i < N + 2; i++) {
        w[i].re = (float)(i % 9) * 0.5f;
        w[i].im = 1.0f - (float)(i % 4);
    }
#pragma acc data copyin(A[0:N][0:M], x[0:M], w[0:N + 2]) copyout(y[0:N], z[0:N])
    {
        cmv(y, A, x);
        csum3(z, w);
    }
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += y[i].re - 0.5 * y[i].im + z[i].re + z[i].im;
    printf("checksum %.6e\n", sum);
    dump_float("y", &y[0].re, 2L * N);
    dump_float("z", &z[0].re, 2L * N);
    return 0;
}
