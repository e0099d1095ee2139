/* zero_copy_compute_clauses.c - OpenACC's data clauses on compute constructs, which accshare
 * may satisfy with zero-copy buffers where the device shares host memory (docs/host-memory.md): a written
 * `copyin` array must not change on the host, a `create` array's device values must not appear
 * in it, `copyout` and `copy` bring the kernels' results back. The sequential build undoes what
 * OpenACC's copies keep from the host, so both builds print the same. Run with and without
 * ACCSHARE_NO_ZERO_COPY=1 by tests/exec.rs. */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

/* The kernel writes its `copyin` array: the device copy changes, the host array does not. */
static void written_copyin(int n, float *a, float *b)
{
#pragma acc parallel loop copyin(a[0:n]) copyout(b[0:n])
    for (int i = 0; i < n; i++) {
        a[i] = 2.0f * a[i];
        b[i] = a[i] + 1.0f;
    }
#ifndef _OPENACC
    for (int i = 0; i < n; i++)
        a[i] = a[i] / 2.0f;
#endif
}

/* A `create` array written and read by the kernel: never copied back. */
static void scratch(int n, float *t, float *c)
{
#pragma acc parallel loop create(t[0:n]) copyout(c[0:n])
    for (int i = 0; i < n; i++) {
        t[i] = 3.0f * (float)i;
        c[i] = t[i] + 0.5f;
    }
#ifndef _OPENACC
    for (int i = 0; i < n; i++)
        t[i] = -1.0f;
#endif
}

/* `copy` through two kernels of one construct, and a read-only `copyin` next to it. */
static void two_kernels(int n, float *u, const float *w)
{
#pragma acc kernels copy(u[0:n]) copyin(w[0:n])
    {
#pragma acc loop independent
        for (int i = 0; i < n; i++)
            u[i] = u[i] + w[i];
#pragma acc loop independent
        for (int i = 0; i < n; i++)
            u[i] = 0.5f * u[i];
    }
}

int main(void)
{
    float *a = malloc(N * sizeof(float));
    float *b = malloc(N * sizeof(float));
    float *c = malloc(N * sizeof(float));
    static float t[N], u[N], w[N];
    if (!a || !b || !c)
        return 1;
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 13) - 6.0f;
        b[i] = 0.0f;
        c[i] = 0.0f;
        t[i] = -1.0f;
        u[i] = (float)(i % 7);
        w[i] = (float)(i % 5) * 0.25f;
    }
    for (int rep = 0; rep < 2; rep++) {
        written_copyin(N, a, b);
        scratch(N, t, c);
        two_kernels(N, u, w);
    }
    dump_float("a", a, N);
    dump_float("b", b, N);
    dump_float("t", t, N);
    dump_float("c", c, N);
    dump_float("u", u, N);
    free(a);
    free(b);
    free(c);
    return 0;
}
