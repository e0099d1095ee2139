/* struct_of_arrays.c - arrays kept in a struct, the way application codes hold a field and its
 * size: a `data` region over members (`copyin(v.a[0:v.n])`), a `parallel loop` and a `kernels
 * loop` that index them (`v.b[i] = v.scale * v.a[i]`, a scalar member passed by value), a fixed-
 * size array member (`v.w`, copied whole), an `update self` of a member inside the region, and
 * a member of a nested struct (`v.aux.c`). */
#include "corpus_common.h"

#ifndef N
#define N 300
#endif
#define W 16

typedef struct {
    double *c;
    int len;
} aux_t;

typedef struct {
    int n;
    double scale;
    double *a;
    double *b;
    float w[W];
    aux_t aux;
} vec_t;

int main(void)
{
    vec_t v;
    double mid[N];
    int i;

    v.n = N;
    v.scale = 2.5;
    v.a = (double *)xmalloc(N * sizeof(double));
    v.b = (double *)xmalloc(N * sizeof(double));
    v.aux.c = (double *)xmalloc(N * sizeof(double));
    v.aux.len = N;
    for (i = 0; i < N; i++) {
        v.a[i] = (double)((i * 7) % 13) / 13.0;
        v.b[i] = 0.0;
        v.aux.c[i] = 1.0;
    }
    for (i = 0; i < W; i++)
        v.w[i] = (float)i * 0.5f;

#pragma acc data copyin(v.a[0:v.n], v.w) copyout(v.b[0:v.n]) copy(v.aux.c[0:v.aux.len])
    {
#pragma acc parallel loop
        for (i = 0; i < v.n; i++)
            v.b[i] = v.scale * v.a[i] + (double)v.w[i % W];

        /* the host reads the first result while the region is open */
#pragma acc update self(v.b[0:v.n])
        for (i = 0; i < N; i++)
            mid[i] = v.b[i];

#pragma acc kernels loop independent
        for (i = 0; i < v.aux.len; i++)
            v.aux.c[i] = v.aux.c[i] + v.b[i] * v.a[i];

#pragma acc parallel loop
        for (i = 1; i < v.n; i++)
            v.b[i] = v.b[i] - v.a[i - 1];
    }

    dump_double("mid", mid, N);
    dump_double("b", v.b, N);
    dump_double("c", v.aux.c, N);
    free(v.a);
    free(v.b);
    free(v.aux.c);
    return 0;
}
