/* popcount_hash.c - unsigned int bit manipulation in a kernel: a `while`
 * loop, hex constants with u suffix, shifts, xor and compound assignments. */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

void hash_bits(int n, const unsigned *restrict in, unsigned *restrict hash, int *restrict bits)
{
#pragma acc parallel loop copyin(in[0:n]) copyout(hash[0:n], bits[0:n])
    for (int i = 0; i < n; i++) {
        unsigned h = in[i] * 0x9E3779B9u;
        unsigned v;
        int c = 0;
        h ^= h >> 16;
        h *= 0x85EBCA6Bu;
        h ^= h >> 13;
        v = h;
        while (v != 0u) {
            c += (int)(v & 1u);
            v >>= 1;
        }
        hash[i] = h;
        bits[i] = c;
    }
}

int main(void)
{
    unsigned *in = xmalloc(sizeof(unsigned) * N);
    unsigned *hash = xmalloc(sizeof(unsigned) * N);
    int *bits = xmalloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        in[i] = (unsigned)i * 2654435761u + 0x1234u;
    hash_bits(N, in, hash, bits);
    dump_uint("hash", hash, N);
    dump_int("bits", bits, N);
    free(in);
    free(hash);
    free(bits);
    return 0;
}
