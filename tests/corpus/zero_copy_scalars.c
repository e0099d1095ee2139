/* zero_copy_scalars.c - scalar variables in data clauses: each is a one-element object with a
 * device copy of its own, which the compute regions inside the data lifetime read and write
 * (reductions, final values of serial regions), which `update self`/`update device` move, and
 * which `copyout`/`exit data copyout` bring back; a compute construct's `copyin` of a scalar
 * keeps the kernel's write from the host. The sequential build undoes what OpenACC's copies
 * hide (under `#ifndef _OPENACC`), so both builds print the same. Run with and without
 * ACCSHARE_NO_ZERO_COPY=1 by tests/exec.rs. */
#include "corpus_common.h"

#ifndef N
#define N 513
#endif

int main(void)
{
    int *v = xmalloc(N * sizeof(int));
    double *w = xmalloc(N * sizeof(double));
    int seen[14];
    double dseen[3];
    for (int i = 0; i < N; i++) {
        v[i] = (i * 37) % 101 - 50;
        w[i] = 1.0 + (double)(i % 5) / 64.0;
    }

    /* A reduction into a scalar a data region holds: the device copy starts the reduction and
     * holds its result until the region copies it out. */
    int mx = -1000;
    double prod = 1.0;
    long total = 7;
#pragma acc data copyin(v[0:N], w[0:N]) copy(mx, prod) copy(total)
    {
#pragma acc parallel loop reduction(max:mx)
        for (int i = 0; i < N; i++)
            mx = v[i] > mx ? v[i] : mx;
#pragma acc kernels loop reduction(*:prod)
        for (int i = 0; i < 40; i++)
            prod *= w[i];
#pragma acc parallel loop reduction(+:total)
        for (int i = 0; i < N; i++)
            total += v[i];
    }
    seen[0] = mx;
    seen[1] = (int)total;
    dseen[0] = prod;

    /* A serial region's write reaches the device copy; the host sees it after `update self`. */
    int count = 5;
    int before = 0, after = 0;
#pragma acc data copyin(v[0:N]) copy(count)
    {
#pragma acc serial
        {
            count = v[3] + 100;
        }
        before = count;
#ifndef _OPENACC
        before = 5;
#endif
#pragma acc update self(count)
        after = count;
    }
    seen[2] = before;
    seen[3] = after;

    /* A host write inside the data region reaches the kernels only after `update device`. */
    int k = 2;
    int *out = xmalloc(N * sizeof(int));
    int *out2 = xmalloc(N * sizeof(int));
#pragma acc data copyin(k, v[0:N]) copyout(out[0:N], out2[0:N])
    {
        k = 3;
#pragma acc parallel loop
        for (int i = 0; i < N; i++)
            out[i] = v[i] * k;
#ifndef _OPENACC
        for (int i = 0; i < N; i++)
            out[i] = v[i] * 2;
#endif
#pragma acc update device(k)
#pragma acc parallel loop
        for (int i = 0; i < N; i++)
            out2[i] = v[i] * k;
    }

    /* `enter data` / `present` / `exit data copyout` of a scalar, across two compute regions:
     * the second reads what the first left in the device copy. */
    int acc = 10;
    int res = 0;
#pragma acc enter data copyin(acc)
#pragma acc serial present(acc)
    {
        acc = acc * 3;
    }
#pragma acc serial present(acc) copyout(res)
    {
        res = acc + 1;
    }
#pragma acc exit data copyout(acc)
    seen[4] = acc;
    seen[5] = res;

    /* `enter data create` / `update self` / `exit data delete`: the host sees the device's
     * value only through the update; the delete copies nothing back. */
    int z = 1;
    int z_seen = 0;
#pragma acc enter data create(z)
#pragma acc serial present(z)
    {
        z = v[2] - 3;
    }
#pragma acc update self(z)
    z_seen = z;
    z = 1000;
#pragma acc serial present(z)
    {
        z = z + 1;
    }
#pragma acc exit data delete(z)
#ifndef _OPENACC
    z = 1000;
#endif

    /* A `create` scalar only the device uses: a temporary between two regions. */
    int tmp = -1;
    int got = 0;
#pragma acc data create(tmp) copy(got)
    {
#pragma acc serial
        {
            tmp = v[10] * 2;
        }
#pragma acc serial
        {
            got = tmp + 1;
        }
    }
#ifndef _OPENACC
    tmp = -1;
#endif
    seen[6] = tmp;
    seen[7] = got;

    /* A compute construct's own `copyin` of a scalar: the kernel's write stays on the device. */
    int t = 4;
    int r = 0;
#pragma acc serial copyin(t) copy(r)
    {
        t = t + v[1];
        r = t;
    }
#ifndef _OPENACC
    t = 4;
#endif
    seen[8] = t;
    seen[9] = r;

    /* `copy` of a scalar on the compute construct, and a scalar with no data clause
     * (firstprivate: read as the host has it). */
    double scale = 0.5;
    double sum = 0.0;
#pragma acc parallel loop copy(sum) reduction(+:sum)
    for (int i = 0; i < N; i++)
        sum += w[i] * scale;
    dseen[1] = sum;
    dseen[2] = scale;
    seen[10] = k;
    seen[11] = count;
    seen[12] = z;
    seen[13] = z_seen;

    dump_int("seen", seen, 14);
    dump_double("dseen", dseen, 3);
    dump_int("out", out, N);
    dump_int("out2", out2, N);
    free(v);
    free(w);
    free(out);
    free(out2);
    return 0;
}
