/* runtime_api.c - data moved by the OpenACC runtime API instead of data clauses: acc_copyin,
 * acc_create, acc_update_device/self, acc_copyout, acc_delete (and their async forms with
 * acc_wait), acc_deviceptr/acc_hostptr with `deviceptr` regions, acc_memcpy_to/from_device,
 * acc_memcpy_device, acc_memcpy_d2d, and acc_malloc memory given to host arrays by
 * acc_map_data, reached by `present`. The sequential build (no OpenACC runtime) does the same
 * on the host: every value the host reads was brought back first, so both print the same. */
#include "corpus_common.h"
#include <string.h>
#ifdef _OPENACC
#include <openacc.h>
#endif

#ifndef N
#define N 64
#endif

int main(void)
{
    static double a[N], b[N], c[N], s[N], e[N], f[N];
    static int ok[8];
    double *cp, *m;
    int i;

    for (i = 0; i < N; i++) {
        a[i] = (double)(i % 7);
        b[i] = (double)((i * 3) % 5);
        c[i] = 0.0;
        s[i] = 0.0;
    }

    /* device copies made by the API, used by `present` regions */
#ifdef _OPENACC
    acc_copyin(a, sizeof a);
    acc_create(c, sizeof c);
    acc_create_async(s, sizeof s, 1);
    acc_wait(1);
    ok[0] = acc_is_present(a, sizeof a) && acc_is_present(s, sizeof s) && acc_async_test(1);
#else
    ok[0] = 1;
#endif
#pragma acc parallel loop present(a[0:N], c[0:N], s[0:N])
    for (i = 0; i < N; i++) {
        c[i] = 2.0 * a[i] + 1.0;
        s[i] = a[i] * a[i];
    }
#ifdef _OPENACC
    acc_update_self(c, sizeof c);
#endif
    /* the host changes `a` and sends it back */
    for (i = 0; i < N; i++)
        a[i] += c[i];
#ifdef _OPENACC
    acc_update_device_async(a, sizeof a, 2);
    acc_wait_all();
#endif
#pragma acc parallel loop present(a[0:N], c[0:N], s[0:N])
    for (i = 0; i < N; i++)
        c[i] = a[i] - c[i] + s[i];

    /* the device address of `c`, named by `deviceptr` */
#ifdef _OPENACC
    cp = (double *)acc_deviceptr(c);
    ok[1] = cp != NULL && acc_hostptr(cp) == (void *)c && acc_deviceptr(b) == NULL;
#else
    cp = c;
    ok[1] = 1;
#endif
#pragma acc parallel loop deviceptr(cp)
    for (i = 0; i < N; i++)
        cp[i] = cp[i] * 3.0;

    /* copies between host and device memory, and on the device */
#ifdef _OPENACC
    acc_memcpy_from_device(b, cp, sizeof b);
    acc_memcpy_to_device(acc_deviceptr(a), b, (N / 2) * sizeof(double));
    acc_memcpy_device((double *)acc_deviceptr(a) + N / 2, cp, (N / 2) * sizeof(double));
    acc_memcpy_d2d(s, a, (N / 4) * sizeof(double), acc_get_device_num(acc_device_not_host), acc_get_device_num(acc_device_not_host));
#else
    memcpy(b, c, sizeof b);
    memcpy(a, b, (N / 2) * sizeof(double));
    memcpy(a + N / 2, c, (N / 2) * sizeof(double));
    memcpy(s, a, (N / 4) * sizeof(double));
#endif
#pragma acc parallel loop present(a[0:N], s[0:N])
    for (i = 0; i < N; i++)
        a[i] = a[i] + s[i];
#ifdef _OPENACC
    acc_copyout(a, sizeof a);
    acc_copyout_async(c, sizeof c, 1);
    acc_delete(s, sizeof s);
    acc_wait_all_async(1);
    ok[2] = !acc_is_present(a, sizeof a) && !acc_is_present(c, sizeof c) && !acc_is_present(s, sizeof s);
#else
    ok[2] = 1;
#endif

    /* device memory of the program's, given to two host arrays */
#ifdef _OPENACC
    m = (double *)acc_malloc(2 * N * sizeof(double));
    acc_map_data(e, m, sizeof e);
    acc_map_data(f, m + N, sizeof f);
    ok[3] = acc_deviceptr(f) == (void *)(m + N) && acc_hostptr(m + N + 1) == (void *)(f + 1) && acc_is_present(e, sizeof e);
#else
    m = (double *)malloc(2 * N * sizeof(double));
    ok[3] = 1;
#endif
#pragma acc data present(e[0:N], f[0:N]) copyin(a[0:N])
    {
#pragma acc parallel loop
        for (i = 0; i < N; i++) {
            e[i] = a[i] + 0.5;
            f[i] = a[i] * 0.25;
        }
    }
    /* still mapped after the data construct: nothing was freed */
#ifdef _OPENACC
    ok[4] = acc_is_present(e, sizeof e) && acc_is_present(f, sizeof f);
    acc_update_self(e, sizeof e);
    acc_memcpy_from_device(f, m + N, sizeof f);
    acc_unmap_data(e);
    acc_unmap_data(f);
    ok[5] = !acc_is_present(e, sizeof e) && acc_hostptr(m) == NULL;
    acc_free(m);
#else
    ok[4] = 1;
    ok[5] = 1;
    free(m);
#endif

    dump_double("a", a, N);
    dump_double("b", b, N);
    dump_double("c", c, N);
    dump_double("e", e, N);
    dump_double("f", f, N);
    dump_int("ok", ok, 6);
    return 0;
}
