/* present_parts.c - data on the device reached through pointers into it, as NPB MG writes its
 * V-cycle: a `data` region in the caller holds whole grids, routines get `&u[offset]` and name
 * it `present(p[0:n])`; `update host` of a part; scratch grids from `acc_malloc` named by
 * `deviceptr` (plain `malloc` in the sequential build). */
#include "corpus_common.h"
#ifdef _OPENACC
#include <openacc.h>
#endif

#ifndef N
#define N 40
#endif
#define LEVELS 3

static void smooth(double *u, const double *r, int n)
{
    double *t;
#ifdef _OPENACC
    t = (double *)acc_malloc(n * sizeof(double));
#else
    t = (double *)malloc(n * sizeof(double));
#endif
#pragma acc data deviceptr(t) present(u[0:n], r[0:n])
    {
#pragma acc parallel loop
        for (int i = 0; i < n; i++)
            t[i] = 0.5 * r[i] + (double)(i % 3);
#pragma acc parallel loop
        for (int i = 1; i < n - 1; i++)
            u[i] = u[i] + 0.25 * (t[i - 1] + 2.0 * t[i] + t[i + 1]);
    }
#ifdef _OPENACC
    acc_free(t);
#else
    free(t);
#endif
}

/* `update host` of a part of an array on the device, through a pointer into it. */
static void pull(double *p, int n)
{
#pragma acc update host(p[0:n])
}

int main(void)
{
    static double u[LEVELS * N], r[LEVELS * N], probe[N];
    int off[LEVELS];
    for (int k = 0; k < LEVELS; k++)
        off[k] = k * N;
    for (int i = 0; i < LEVELS * N; i++) {
        u[i] = (double)(i % 7);
        r[i] = (double)((i * 5) % 11) / 11.0;
    }
#pragma acc data copy(u) copyin(r)
    {
        for (int k = 0; k < LEVELS; k++)
            smooth(&u[off[k]], &r[off[k]], N - 4 * k);
        /* the middle level back on the host while the region is open */
        pull(&u[N], N);
        for (int i = 0; i < N; i++)
            probe[i] = u[N + i];
    }
    dump_double("u", u, LEVELS * N);
    dump_double("probe", probe, N);
    return 0;
}
