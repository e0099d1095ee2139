/* corpus_common.h - shared helpers for the accshare test corpus.
 * Dump format (compared between the sequential and the accelerated run):
 *   == <name> <element count>
 *   <one value per line>
 * floats/doubles with %.9g, integers with %d / %u. */
#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H

#include <stdio.h>
#include <stdlib.h>

static inline void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

static inline void dump_double(const char *name, const double *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", a[k]);
}

static inline void dump_int(const char *name, const int *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%d\n", a[k]);
}

static inline void dump_uint(const char *name, const unsigned *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%u\n", a[k]);
}

static inline void dump_u8(const char *name, const unsigned char *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%u\n", (unsigned)a[k]);
}

/* deterministic test data in [0, 1) */
#define INIT2(i, j) ((float)(((i) * 7 + (j) * 3) % 17) / 17.0f)

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

#endif /* CORPUS_COMMON_H */
