/* atomic_histogram.c - `#pragma acc atomic` inside a parallel loop: an int histogram through
 * an indirect index, float and double weights accumulated into bins (exact sums: multiples of
 * 0.25), bit sets, a product, a reversed update, 64-bit sums, an atomic read and write, and
 * captures: tickets drawn from a counter per bin and from a scalar of the function (whose value
 * the function uses after the region). Every result is independent of the order of the
 * updates, so it matches the sequential program. */
#include "corpus_common.h"

#ifndef N
#define N 3000
#endif
#ifndef BINS
#define BINS 37
#endif

void histogram(const int key[N], const float w[N], const int base[BINS], int hist[BINS],
               float wsum[BINS], double dsum[BINS], unsigned bits[BINS], unsigned prod[BINS],
               int flip[BINS], long lsum[BINS], int seen[BINS], int count[BINS],
               int tsum[BINS], int *reads, int *heavy, long *heavy_tickets)
{
    int drawn = 0;
    long tickets = 0;
#pragma acc parallel loop copyin(key[0:N], w[0:N], base[0:BINS]) \
    copy(hist[0:BINS], wsum[0:BINS], dsum[0:BINS], bits[0:BINS], prod[0:BINS], \
         flip[0:BINS], lsum[0:BINS], seen[0:BINS], count[0:BINS], tsum[0:BINS], reads[0:1])
    for (int i = 0; i < N; i++) {
        int b = key[i] % BINS;
#pragma acc atomic update
        hist[b]++;
#pragma acc atomic
        wsum[b] += w[i];
#pragma acc atomic update
        dsum[b] = dsum[b] + 0.5 * w[i];
#pragma acc atomic
        bits[b] |= 1u << (i % 32);
#pragma acc atomic
        prod[b] = prod[b] * 3u;
#pragma acc atomic
        flip[b] = 10 - flip[b];
#pragma acc atomic
        lsum[b] += (long)i * 1000003L;
#pragma acc atomic write
        seen[b] = 1;
        int v;
#pragma acc atomic read
        v = base[b];
#pragma acc atomic
        reads[0] += v;
        int t;
#pragma acc atomic capture
        t = ++count[b];
#pragma acc atomic
        tsum[b] += t;
        if (w[i] > 2.0f) {
            int s;
#pragma acc atomic capture
            {
                s = drawn;
                drawn += 1;
            }
#pragma acc atomic
            tickets += s;
        }
    }
    *heavy = drawn;
    *heavy_tickets = tickets;
}

int main(void)
{
    static int key[N], base[BINS], hist[BINS], flip[BINS], seen[BINS], count[BINS], tsum[BINS];
    static float w[N], wsum[BINS];
    static double dsum[BINS];
    static unsigned bits[BINS], prod[BINS];
    static long lsum[BINS];
    static int lsum_lo[BINS], out[4];
    int reads = 0, heavy = 0;
    long heavy_tickets = 0;
    for (int i = 0; i < N; i++) {
        key[i] = (i * 7919 + 13) % 1009;
        w[i] = 0.25f * (float)((i * 5) % 13);
    }
    for (int b = 0; b < BINS; b++) {
        base[b] = b % 7;
        prod[b] = 1u + (unsigned)b;
        flip[b] = b;
    }
    histogram(key, w, base, hist, wsum, dsum, bits, prod, flip, lsum, seen, count, tsum, &reads,
              &heavy, &heavy_tickets);
    for (int b = 0; b < BINS; b++)
        lsum_lo[b] = (int)(lsum[b] % 1000000007L);
    out[0] = reads;
    out[1] = heavy;
    out[2] = (int)(heavy_tickets % 1000000007L);
    out[3] = (int)(heavy_tickets / 1000000007L);
    dump_int("hist", hist, BINS);
    dump_float("wsum", wsum, BINS);
    dump_double("dsum", dsum, BINS);
    dump_uint("bits", bits, BINS);
    dump_uint("prod", prod, BINS);
    dump_int("flip", flip, BINS);
    dump_int("lsum", lsum_lo, BINS);
    dump_int("seen", seen, BINS);
    dump_int("count", count, BINS);
    dump_int("tsum", tsum, BINS);
    dump_int("out", out, 4);
    return 0;
}
