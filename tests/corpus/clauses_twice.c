/* clauses_twice.c - the same arrays in two data clauses of one construct, as
 * ported codes write `present_or_copyin(A, B) present_or_copyout(A, B, tmp)`:
 * where the arrays are present (inside the data region) nothing moves; where
 * they are not, copy-in and copy-out both happen (the union: `copy`). */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

int main(void)
{
    float *a = xmalloc(sizeof(float) * N);
    float *b = xmalloc(sizeof(float) * N);
    float *tmp = xmalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 17);
        b[i] = (float)(i % 5) * 0.5f;
        tmp[i] = 0.0f;
    }
#pragma acc parallel loop present_or_copyin(a[0:N], b[0:N]) present_or_copyout(a[0:N], b[0:N], tmp[0:N])
    for (int i = 0; i < N; i++) {
        tmp[i] = a[i] * b[i];
        a[i] = a[i] + tmp[i];
    }
#pragma acc data copy(a[0:N]) copyin(b[0:N])
    {
#pragma acc parallel loop copyin(a[0:N], b[0:N]) copyout(a[0:N])
        for (int i = 0; i < N; i++)
            a[i] = a[i] - b[i];
    }
    dump_float("a", a, N);
    dump_float("tmp", tmp, N);
    free(a);
    free(b);
    free(tmp);
    return 0;
}
