/* struct_member_changes.c - a scalar member the host assigns between the compute regions of
 * one data region (`v.n = t * 10;` before each `parallel loop` up to `v.n`, a time loop that
 * grows the active part of a field): each region's kernel must see the member's value when the
 * region starts, not the value it had when the data region began. */
#include "corpus_common.h"

#ifndef N
#define N 200
#endif
#define STEPS 10

typedef struct {
    int n;
    double scale;
    double *a;
} field_t;

int main(void)
{
    field_t v;
    int t, i;
    v.n = N;
    v.scale = 1.0;
    v.a = (double *)malloc(N * sizeof(double));
    for (i = 0; i < N; i++)
        v.a[i] = (double)(i % 13);
#pragma acc data copy(v.a[0:v.n])
    {
        for (t = 1; t <= STEPS; t++) {
            v.n = t * (N / STEPS);
            v.scale = 0.5 * t;
#pragma acc parallel loop
            for (i = 0; i < v.n; i++)
                v.a[i] = v.a[i] + v.scale;
        }
    }
    dump_double("a", v.a, N);
    free(v.a);
    return 0;
}
