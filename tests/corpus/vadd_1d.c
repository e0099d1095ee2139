/* vadd_1d.c - simplest case: one 1-D `parallel loop` over malloc'ed pointers
 * with subarray data clauses; self-contained (no corpus_common.h). */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1000
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

void vadd(int n, const float *a, const float *b, float *c)
{
#pragma acc parallel loop copyin(a[0:n], b[0:n]) copyout(c[0:n])
    for (int i = 0; i < n; i++)
        c[i] = a[i] + 2.0f * b[i];
}

int main(void)
{
    float *a = malloc(N * sizeof(float));
    float *b = malloc(N * sizeof(float));
    float *c = malloc(N * sizeof(float));
    if (!a || !b || !c)
        return 1;
    for (int i = 0; i < N; i++) {
        a[i] = (float)((i * 7) % 17) / 17.0f;
        b[i] = (float)((i * 3) % 13) / 13.0f;
        c[i] = -1.0f;
    }
    vadd(N, a, b, c);
    dump_float("c", c, N);
    free(a);
    free(b);
    free(c);
    return 0;
}
