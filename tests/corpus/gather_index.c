/* gather_index.c - indirect (gather) reads through an int index array and
 * a weighted write, on fixed-size arrays passed as parameters. */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif
#ifndef SRC
#define SRC 257
#endif

void gather(float out[N], const float src[SRC], const int idx[N], const float w[N])
{
#pragma acc parallel loop copyin(src[0:SRC], idx[0:N], w[0:N]) copyout(out[0:N])
    for (int i = 0; i < N; i++) {
        int k = idx[i];
        out[i] = (k >= 0) ? w[i] * src[k] : 0.0f;
    }
}

int main(void)
{
    static float out[N], src[SRC], w[N];
    static int idx[N];
    for (int i = 0; i < SRC; i++)
        src[i] = (float)((i * 13) % 29) / 29.0f;
    for (int i = 0; i < N; i++) {
        idx[i] = (i % 10 == 9) ? -1 : (i * 31 + 7) % SRC;
        w[i] = 1.0f + (float)(i % 4);
    }
    gather(out, src, idx, w);
    dump_float("out", out, N);
    return 0;
}
