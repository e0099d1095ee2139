/* atomic_minmax.c - minimum and maximum under `#pragma acc atomic update` (OpenACC 3.x's
 * `x = min(x, e)`, as C writes it: a conditional, `fminf`/`fmaxf`/`fmin`, `if (e > x) x = e;`)
 * on int, unsigned, long, float and double bins through an indirect index, and atomics on
 * `char` and `short` elements (a compare-and-swap on the word that holds them): a byte
 * histogram, a short maximum, a signed char minimum, bit sets on bytes. Every result is
 * independent of the order of the updates. */
#include <math.h>
#include "corpus_common.h"

#ifndef N
#define N 3000
#endif
#ifndef BINS
#define BINS 37
#endif

int key[N];
float w[N];
int imin[BINS], imax[BINS], iif[BINS];
unsigned umax[BINS];
long lmin[BINS];
float fmx[BINS], fmn[BINS];
double dmx[BINS], dmn[BINS];
unsigned char cnt8[BINS], bits8[BINS];
short smax[BINS], ssum[BINS];
signed char cmin[BINS];

int main(void)
{
    for (int i = 0; i < N; i++) {
        key[i] = (i * 7919) % 1009;
        w[i] = (float)((i * 37) % 101) * 0.5f - 20.0f;
    }
    for (int b = 0; b < BINS; b++) {
        imin[b] = 1 << 30;
        imax[b] = -(1 << 30);
        iif[b] = 0;
        umax[b] = 3;
        lmin[b] = 1L << 40;
        fmx[b] = -1000.0f;
        fmn[b] = 1000.0f;
        dmx[b] = -1e9;
        dmn[b] = 1e9;
        cnt8[b] = 0;
        bits8[b] = 0;
        smax[b] = -5;
        ssum[b] = 0;
        cmin[b] = 100;
    }
#pragma acc parallel loop copyin(key, w) copy(imin, imax, iif, umax, lmin, fmx, fmn, dmx, dmn, \
                                             cnt8, bits8, smax, ssum, cmin)
    for (int i = 0; i < N; i++) {
        int b = key[i] % BINS;
        int v = key[i] - 500;
        float f = w[i];
#pragma acc atomic update
        imin[b] = imin[b] < v ? imin[b] : v;
#pragma acc atomic update
        imax[b] = v > imax[b] ? v : imax[b];
#pragma acc atomic update
        if (v * 3 > iif[b])
            iif[b] = v * 3;
#pragma acc atomic update
        umax[b] = umax[b] >= (unsigned)key[i] ? umax[b] : (unsigned)key[i];
#pragma acc atomic
        lmin[b] = (long)v * 1000 < lmin[b] ? (long)v * 1000 : lmin[b];
#pragma acc atomic update
        fmx[b] = fmaxf(fmx[b], f);
#pragma acc atomic update
        fmn[b] = fminf(f * 2.0f, fmn[b]);
#pragma acc atomic update
        dmx[b] = fmax(dmx[b], (double)f * 0.25);
#pragma acc atomic update
        if (dmn[b] > (double)v)
            dmn[b] = (double)v;
#pragma acc atomic update
        cnt8[b]++;
#pragma acc atomic update
        bits8[b] |= (unsigned char)(1u << (i % 8));
#pragma acc atomic update
        smax[b] = smax[b] > (short)v ? smax[b] : (short)v;
#pragma acc atomic update
        ssum[b] += (short)(i % 3);
#pragma acc atomic update
        cmin[b] = (signed char)(v % 100) < cmin[b] ? (signed char)(v % 100) : cmin[b];
    }
    dump_int("imin", imin, BINS);
    dump_int("imax", imax, BINS);
    dump_int("iif", iif, BINS);
    dump_uint("umax", umax, BINS);
    static double lmin_d[BINS];
    static int bytes[5 * BINS];
    for (int b = 0; b < BINS; b++) {
        lmin_d[b] = (double)lmin[b];
        bytes[5 * b] = cnt8[b];
        bytes[5 * b + 1] = bits8[b];
        bytes[5 * b + 2] = smax[b];
        bytes[5 * b + 3] = ssum[b];
        bytes[5 * b + 4] = cmin[b];
    }
    dump_double("lmin", lmin_d, BINS);
    dump_float("fmx", fmx, BINS);
    dump_float("fmn", fmn, BINS);
    dump_double("dmx", dmx, BINS);
    dump_double("dmn", dmn, BINS);
    dump_int("narrow", bytes, 5 * BINS);
    return 0;
}
