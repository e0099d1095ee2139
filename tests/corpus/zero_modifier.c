/* zero_modifier.c - OpenACC 3.3's `zero:` modifier: a `copyout(zero: …)` or
 * `create(zero: …)` device copy starts zeroed. Under accshare (`_OPENACC`
 * defined) the host arrays hold garbage first, so only zeroed device copies
 * give the sequential program's values (where the arrays start at zero). */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

int main(void)
{
    float *a = xmalloc(sizeof(float) * N);
    float *b = xmalloc(sizeof(float) * N);
    float *t = xmalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 11) - 3.0f;
#ifdef _OPENACC
        b[i] = 1234.5f;
        t[i] = -77.0f;
#else
        b[i] = 0.0f;
        t[i] = 0.0f;
#endif
    }
#pragma acc data copyin(a[0:N]) create(zero: t[0:N])
    {
#pragma acc parallel loop copyout(zero: b[0:N]) present(t[0:N])
        for (int i = 0; i < N; i++) {
            t[i] += a[i] * a[i];
            b[i] += a[i] + t[i];
        }
    }
    dump_float("b", b, N);
    free(a);
    free(b);
    free(t);
    return 0;
}
