/* serial_claim.c - a `serial` construct whose gang loop claims `independent`
 * while its iterations reuse a scratch array (each writes `t` then reads it):
 * the construct runs on one gang, worker and lane, so the loop runs in order
 * and computes what the program as written computes (accshare warns). */
#include "corpus_common.h"

#ifndef N
#define N 200
#endif
#define W 10

int main(void)
{
    float *a = xmalloc(sizeof(float) * N * W);
    float *b = xmalloc(sizeof(float) * N * W);
    float *d = xmalloc(sizeof(float) * N * W);
    float t[W];
    for (int i = 0; i < N * W; i++) {
        a[i] = (float)(i % 19) * 0.5f;
        b[i] = (float)(i % 7);
        d[i] = 0.0f;
    }
    for (int y = 0; y < W; y++)
        t[y] = 0.0f;
#pragma acc serial copyin(a[0:N*W], b[0:N*W]) copy(d[0:N*W], t[0:W])
    {
#pragma acc loop gang independent
        for (int x = 0; x < N; ++x) {
#pragma acc loop worker independent
            for (int y = 0; y < W; ++y)
                t[y] = a[x * W + y] - b[x * W + y];
#pragma acc loop worker independent
            for (int y = 0; y < W; ++y)
                d[x * W + y] = a[x * W + y] + b[x * W + y] + t[y];
        }
    }
    dump_float("d", d, (long)N * W);
    dump_float("t", t, W);
    free(a);
    free(b);
    free(d);
    return 0;
}
