/* if_clause.c - OpenACC's `if` clause, as the OpenACC validation suite and
 * size-switched codes use it: a compute construct whose condition does not
 * hold runs on the host, as written, with the host's arrays, and no data
 * clause of it acts; `enter data`/`exit data`/`update` with a false
 * condition do nothing. The second pass writes the host's `y` while `y` also
 * has a device copy (entered under a true condition): only a host fallback
 * that really ran on the host leaves the values the sequential program has. */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

int main(void)
{
    float *x = xmalloc(sizeof(float) * N);
    float *y = xmalloc(sizeof(float) * N);
    int big = N > 500;
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 13) * 0.25f;
        y[i] = 1.0f;
    }
    for (int rep = 0; rep < 4; rep++) {
        int on_device = rep % 2 == 0;
#pragma acc parallel loop if(on_device) copyin(x[0:N]) copy(y[0:N])
        for (int i = 0; i < N; i++)
            y[i] = 0.5f * y[i] + x[i] * (float)(rep + 1);
#pragma acc kernels if(rep < 2 && big) copy(y[0:N])
        {
            for (int i = 0; i < N; i++)
                y[i] += 1.0f;
        }
    }
    /* The device copy of y is stale while the host fallback updates y. */
#pragma acc enter data copyin(y[0:N]) if(big)
#pragma acc parallel loop if(!big && 0) present(y[0:N])
    for (int i = 0; i < N; i++)
        y[i] = y[i] * 2.0f - 1.0f;
#pragma acc update self(y[0:N]) if(0)
#pragma acc exit data delete(y[0:N]) if(big)
    dump_float("y", y, N);
    free(x);
    free(y);
    return 0;
}
