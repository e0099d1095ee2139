/* on_device.c - `acc_on_device` in compute regions: false for `acc_device_host`
 * and `acc_device_none`, true for the other device types (the runtime's devices),
 * an argument from a host variable or a constant; the `if` at the top level of
 * a `parallel` construct runs once. The sequential build answers as the host,
 * so the program prints what holds on both sides. */
#include "corpus_common.h"
#ifdef _OPENACC
#include <openacc.h>
#else
enum { acc_device_none, acc_device_default, acc_device_host, acc_device_not_host };
static int acc_on_device(int t) { return t == acc_device_host; }
#endif

#ifndef N
#define N 100
#endif

int main(void)
{
    int *v = xmalloc(sizeof(int) * N);
    int err[1] = {0};
    int host = acc_device_host, none = acc_device_none;
    for (int i = 0; i < N; i++)
        v[i] = i;
#pragma acc parallel loop copy(v[0:N])
    for (int i = 0; i < N; i++) {
        if (acc_on_device(acc_device_none))
            v[i] = -1;
        else if (acc_on_device(host) || acc_on_device(acc_device_not_host))
            v[i] = v[i] * 2 + !acc_on_device(none);
    }
#pragma acc parallel copy(err[0:1])
    {
        if (acc_on_device(acc_device_host) == acc_on_device(acc_device_not_host))
            err[0] += 1;
    }
    dump_int("v", v, N);
    dump_int("err", err, 1);
    free(v);
    return 0;
}
