/* aos_share_write_cpx.c - kernels that write arrays of structures in place, in the style of the
 * published OpenACC suites (sizes and the element type from macros, a `data` region around the
 * kernels), with `share` hints naming the written arrays: each is staged as one tile per field
 * (AoS -> SoA), every written field stored back to global memory field by field, fields only
 * read loaded and never stored, fields not referenced left alone. A complex matrix-vector
 * product accumulated in place (`y[i].re += ...` in the strip-mined loop: the written tiles are
 * loaded first), a transposed complex product in place computed from neighbours (`z[j][i].re =
 * ...`), a field written under a condition beside a field only read, a field of a three-field
 * struct written without being read beside one read and one untouched, and the interleaved
 * form (`u[j][2*i]`, `u[j][2*i + 1]`) written in place. */
#include <stdio.h>
#include "corpus_common.h"

#ifndef N
#define N 256
#endif
#ifndef M
#define M 128
#endif
#define REAL float
#define HALF ((REAL)0.5)

typedef struct {
    REAL re, im;
} cpx;

typedef struct {
    REAL x, y, m;
} body;

/* y += A x, accumulated in place */
void cmv_acc(cpx y[N], cpx A[N][M], cpx x[M])
{
#pragma acc share(y[TB_X], x[*], A[64][*]:coalesce)
#pragma acc kernels loop independent present(y[0:N], A[0:N][0:M], x[0:M])
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < M; j++) {
            y[i].re += A[i][j].re * x[j].re - A[i][j].im * x[j].im;
            y[i].im += A[i][j].re * x[j].im + A[i][j].im * x[j].re;
        }
    }
}

/* z^T times the mean of two neighbouring w, in place */
void cmul_t(cpx z[M][N], cpx w[N][M + 1])
{
#pragma acc share(z[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent present(z[0:M][0:N], w[0:N][0:M + 1])
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < M; j++) {
            REAL sr = HALF * (w[i][j].re + w[i][j + 1].re);
            REAL si = HALF * (w[i][j].im + w[i][j + 1].im);
            REAL zr = z[j][i].re, zi = z[j][i].im;
            z[j][i].re = zr * sr - zi * si;
            z[j][i].im = zr * si + zi * sr;
        }
    }
}

/* the imaginary part damped where the real part is negative: `im` written under a condition,
 * `re` only read */
void cdamp_t(cpx z[M][N], REAL d)
{
#pragma acc share(z[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent present(z[0:M][0:N])
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < M; j++) {
            if (z[j][i].re < (REAL)0)
                z[j][i].im = d * z[j][i].im + z[j][i].re;
        }
    }
}

/* the bodies' x set from their y and a transposed velocity: `x` written without being read,
 * `y` only read, `m` untouched */
void drift_t(body b[M][N], REAL v[N][M], REAL dt)
{
#pragma acc share(b[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent present(b[0:M][0:N], v[0:N][0:M])
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < M; j++)
            b[j][i].x = b[j][i].y + dt * v[i][j];
    }
}

/* interleaved pairs (u[j][2*i] the real part, u[j][2*i + 1] the imaginary part) rotated in
 * place by a transposed twiddle */
void irot_t(REAL u[N][2 * M], REAL t[M][2 * N])
{
#pragma acc share(u[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent present(u[0:N][0:2 * M], t[0:M][0:2 * N])
    for (int i = 0; i < M; i++) {
#pragma acc loop independent
        for (int j = 0; j < N; j++) {
            REAL ur = u[j][2 * i], ui = u[j][2 * i + 1];
            u[j][2 * i] = ur * t[i][2 * j] - ui * t[i][2 * j + 1];
            u[j][2 * i + 1] = ur * t[i][2 * j + 1] + ui * t[i][2 * j];
        }
    }
}

int main(void)
{
    static cpx y[N], A[N][M], x[M], z[M][N], w[N][M + 1];
    static body b[M][N];
    static REAL v[N][M], u[N][2 * M], t[M][2 * N];
    for (int i = 0; i < N; i++) {
        y[i].re = (REAL)(i % 7) - 3.0f;
        y[i].im = (REAL)(i % 3) * 0.5f;
        for (int j = 0; j < M; j++) {
            A[i][j].re = (REAL)((i + 3 * j) % 17) * 0.125f - 1.0f;
            A[i][j].im = (REAL)((2 * i + j) % 7) * 0.25f;
            v[i][j] = (REAL)((i * 5 + j) % 11) - 5.0f;
        }
        for (int j = 0; j <= M; j++) {
            w[i][j].re = (REAL)((i + j) % 9) * 0.25f;
            w[i][j].im = 1.0f - (REAL)((i * j) % 4) * 0.5f;
        }
        for (int j = 0; j < 2 * M; j++)
            u[i][j] = (REAL)((i * 3 + j) % 10) * 0.5f - 2.0f;
    }
    for (int j = 0; j < M; j++) {
        x[j].re = (REAL)(j % 6) - 2.5f;
        x[j].im = (REAL)(j % 3) * 0.5f;
        for (int i = 0; i < N; i++) {
            z[j][i].re = (REAL)((i + 2 * j) % 13) * 0.25f - 1.5f;
            z[j][i].im = (REAL)((3 * i + j) % 5) * 0.5f - 1.0f;
            b[j][i].x = -7.0f;
            b[j][i].y = (REAL)((i + j) % 8) * 0.75f;
            b[j][i].m = 1.0f + (REAL)(i % 3);
        }
        for (int i = 0; i < 2 * N; i++)
            t[j][i] = (REAL)((i + 5 * j) % 7) * 0.25f - 0.5f;
    }
#pragma acc data copy(y[0:N], z[0:M][0:N], b[0:M][0:N], u[0:N][0:2 * M]) \
    copyin(A[0:N][0:M], x[0:M], w[0:N][0:M + 1], v[0:N][0:M], t[0:M][0:2 * N])
    {
        cmv_acc(y, A, x);
        cmul_t(z, w);
        cdamp_t(z, HALF);
        cmul_t(z, w);
        drift_t(b, v, (REAL)0.25);
        irot_t(u, t);
    }
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += y[i].re - 0.5 * y[i].im;
    for (int j = 0; j < M; j++)
        for (int i = 0; i < N; i++)
            sum += z[j][i].re + 0.25 * z[j][i].im + b[j][i].x + b[j][i].m + u[i][2 * j + 1];
    printf("checksum %.6e\n", sum);
    dump_float("y", &y[0].re, 2L * N);
    dump_float("z", &z[0][0].re, 2L * M * N);
    dump_float("b", &b[0][0].x, 3L * M * N);
    dump_float("u", &u[0][0], 2L * M * N);
    return 0;
}
