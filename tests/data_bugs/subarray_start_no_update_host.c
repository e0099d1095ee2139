/* planted: host
 * from: tests/corpus/subarray_start.c
 * flags: 
 * change: `update host(v[N + 2:5])` deleted (the kernels that wrote `v` run in callees, `shift` and `bump`) */
/* subarray_start.c - subarrays that start past 0 (OpenACC: only that section is on the device,
 * addressed with the host's indices): `copyin(u[lo:n])` on a compute construct, a routine's
 * `present(p[lo:n])` and its loop over `p[lo:lo+n]` with no clause, `copy(v[N:N])`
 * and `copyout` on a `data` construct, `enter data`/`exit data` of a section, `update
 * device`/`update host` of a part of a section, and the first dimension of a 2-D array. The
 * host's elements outside each section must stay as they were. */
#include "../corpus/corpus_common.h"

#ifndef N
#define N 37
#endif
#ifndef M
#define M 13
#endif

float u[3 * N], v[2 * N], w[3 * N];
double a[N][M];
int h[2 * N];

static void shift(float *p, int lo, int n)
{
#pragma acc parallel loop present(p[lo:n])
    for (int i = lo; i < lo + n; i++)
        p[i] = p[i] * 0.5f + 1.0f;
}

/* no data clause: the section the loop reaches (from `lo`) is what the caller holds */
static void bump(float *p, int lo, int n)
{
#pragma acc parallel loop
    for (int i = lo; i < lo + n; i++)
        p[i] += 2.0f;
}

int main(void)
{
    int lo = N / 3 + 1, n = N;
    for (int i = 0; i < 3 * N; i++) {
        u[i] = (float)(i % 11);
        w[i] = -1.0f;
    }
    for (int i = 0; i < 2 * N; i++) {
        v[i] = (float)i * 0.25f;
        h[i] = i;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            a[i][j] = i * 100 + j;

    /* a compute construct's own sections */
#pragma acc parallel loop copyin(u[lo:n]) copyout(w[lo:n])
    for (int i = lo; i < lo + n; i++)
        w[i] = u[i] * 2.0f + (float)i;

    /* a data construct's sections; a kernel inside and a routine's `present` */
#pragma acc data copy(v[N:N]) copyin(u[lo:n]) copyout(w[N:N])
    {
#pragma acc parallel loop
        for (int i = N; i < 2 * N; i++)
            v[i] = v[i] + u[i - N + lo];
#pragma acc parallel loop present(w[N:N])
        for (int i = N; i < 2 * N; i++)
            w[i] = v[i] - 1.0f;
        shift(v, N, N);
        bump(v, N, N);
        /* part of a section back on the host while the region is open */
        v[N + 2] += 100.0f;
#pragma acc update device(v[N + 2:1])
#pragma acc parallel loop
        for (int i = N; i < 2 * N; i++)
            v[i] += 1.0f;
    }

    /* enter/exit data of a section, update device of a part of it */
#pragma acc enter data copyin(h[N:N])
    for (int i = N + 2; i < N + 7; i++)
        h[i] = 1000 + i;
#pragma acc update device(h[N + 2:5])
#pragma acc parallel loop present(h[N:N])
    for (int i = N; i < 2 * N; i++)
        h[i] = h[i] * 3 + 1;
#pragma acc exit data copyout(h[N:N])

    /* the first dimension of a 2-D array */
#pragma acc parallel loop copy(a[2:N - 4][0:M])
    for (int i = 2; i < N - 2; i++)
        for (int j = 0; j < M; j++)
            a[i][j] = a[i][j] * 2.0 + j;

    dump_float("u", u, 3 * N);
    dump_float("v", v, 2 * N);
    dump_float("w", w, 3 * N);
    dump_int("h", h, 2 * N);
    dump_double("a", &a[0][0], (long)N * M);
    return 0;
}
