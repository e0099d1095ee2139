/* planted: host
 * from: tests/corpus/zero_copy_data_updates.c
 * flags: 
 * change: `update host(a)` deleted (the kernel that wrote `a` runs in a callee, `bump`) */
/* zero_copy_data_updates.c - a `data` region and `enter`/`exit data` around compute
 * constructs, with `update host`/`update device` between kernels and host code that reads and writes the arrays
 * while they are on the device: the host sees the device's values only after `update host`,
 * the device the host's only after `update device`, a `create`/`delete` array never reaches
 * the host. The sequential build undoes what OpenACC's copies hide, so both builds print the
 * same. Run with and without ACCSHARE_NO_ZERO_COPY=1 by tests/exec.rs. */
#include "../corpus/corpus_common.h"

#ifndef N
#define N 777
#endif

/* A callee's `copy`: present in the caller's data region, so nothing moves here. */
static void bump(int n, float *p, float by)
{
#pragma acc parallel loop copy(p[0:n])
    for (int i = 0; i < n; i++)
        p[i] = p[i] + by;
}

int main(void)
{
    float *a = malloc(N * sizeof(float));
    float *stale = malloc(N * sizeof(float));
    float *fresh = malloc(N * sizeof(float));
    float *seen = malloc(N * sizeof(float));
    static float t[N], r[N];
    if (!a || !stale || !fresh || !seen)
        return 1;
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 9);
        t[i] = -2.0f;
        r[i] = 0.0f;
    }
#pragma acc data copy(a[0:N]) copyout(r[0:N])
    {
        bump(N, a, 1.0f);
        /* not updated yet: the host still holds its own values */
        for (int i = 0; i < N; i++) {
#ifdef _OPENACC
            stale[i] = a[i];
#else
            stale[i] = a[i] - 1.0f;
#endif
        }
        for (int i = 0; i < N; i++)
            fresh[i] = a[i];
        /* a host write the device does not see without `update device` */
        for (int i = 0; i < N; i++)
            a[i] = a[i] + 100.0f;
#pragma acc parallel loop present(a[0:N], r[0:N])
        for (int i = 0; i < N; i++)
            r[i] = a[i];
#ifndef _OPENACC
        for (int i = 0; i < N; i++)
            r[i] = r[i] - 100.0f;
#endif
        for (int i = 0; i < N; i++)
            a[i] = 2.0f * (a[i] - 100.0f);
#pragma acc update device(a[0:N])
        bump(N, a, 0.5f);
    }
    /* `enter data create`: device values of `t` never reach the host */
#pragma acc enter data create(t[0:N]) copyin(a[0:N])
#pragma acc parallel loop present(t[0:N], a[0:N])
    for (int i = 0; i < N; i++) {
        t[i] = a[i] * 3.0f;
        a[i] = t[i] - a[i];
    }
    for (int i = 0; i < N; i++)
        seen[i] = t[i];
#pragma acc exit data delete(t[0:N]) copyout(a[0:N])
#ifndef _OPENACC
    for (int i = 0; i < N; i++) {
        seen[i] = -2.0f;
        t[i] = -2.0f;
    }
#endif
    dump_float("stale", stale, N);
    dump_float("fresh", fresh, N);
    dump_float("r", r, N);
    dump_float("a", a, N);
    dump_float("seen", seen, N);
    dump_float("t", t, N);
    free(a);
    free(stale);
    free(fresh);
    free(seen);
    return 0;
}
