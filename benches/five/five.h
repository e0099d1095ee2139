/* five.h - what the five timing programs share (benches/five.sh runs them).
 *
 * Each program times its OpenACC region (the `#pragma acc data` construct and
 * the compute constructs in it, transfers included) REPS times, re-initialising
 * its inputs before each repetition outside the timer, and prints
 *
 *   time <seconds>        one line per repetition (the first one includes the
 *                         OpenCL program build of an accshare build)
 *   checksum <value>      a position-weighted sum of the output, the same in
 *                         every correct build (bit-identical for exact kernels)
 *
 * on stdout. With -DDUMP the output arrays are printed on stdout instead, in
 * the `== NAME COUNT` dump format the test harness compares (tests/five.rs),
 * and the time/checksum lines go to stderr. */
#ifndef FIVE_H
#define FIVE_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef REPS
#define REPS 3
#endif

#ifdef DUMP
#define FIVE_REPORT stderr
#else
#define FIVE_REPORT stdout
#endif

/* Wall-clock seconds (monotonic). */
static inline double five_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

static inline void *five_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "out of memory (%lu bytes)\n", (unsigned long)bytes);
        exit(1);
    }
    return p;
}

static inline void five_time(double seconds)
{
    fprintf(FIVE_REPORT, "time %.6f\n", seconds);
}

/* The weight of element k in a checksum: a wrong placement changes the sum. */
#define FIVE_WEIGHT(k) ((double)((k) % 7 + 1))

static inline void five_checksum_float(const float *a, long n)
{
    double s = 0.0;
    long k;
    for (k = 0; k < n; k++)
        s += FIVE_WEIGHT(k) * (double)a[k];
    fprintf(FIVE_REPORT, "checksum %.17g\n", s);
}

static inline void five_checksum_u8(const unsigned char *a, long n)
{
    unsigned long s = 0;
    long k;
    for (k = 0; k < n; k++)
        s += (unsigned long)(k % 7 + 1) * a[k];
    fprintf(FIVE_REPORT, "checksum %lu\n", s);
}

static inline void five_dump_float(const char *name, const float *a, long n)
{
#ifdef DUMP
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
#else
    (void)name;
    (void)a;
    (void)n;
#endif
}

static inline void five_dump_u8(const char *name, const unsigned char *a, long n)
{
#ifdef DUMP
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%u\n", (unsigned)a[k]);
#else
    (void)name;
    (void)a;
    (void)n;
#endif
}

#endif /* FIVE_H */
