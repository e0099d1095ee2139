/* private_tmp.c - `private(tmp)` on a scalar declared outside the loop, and
 * explicit gang / vector(128) loop mapping on a rectangular nest. */
#include "corpus_common.h"

#ifndef N
#define N 257
#endif
#ifndef M
#define M 101
#endif

void poly_eval(float out[N][M], float in[N][M], float c0, float c1, float c2)
{
    float tmp;
    int i, j;
#pragma acc parallel loop gang private(tmp) copyin(in[0:N][0:M]) copyout(out[0:N][0:M])
    for (i = 0; i < N; i++) {
#pragma acc loop vector(128) private(tmp)
        for (j = 0; j < M; j++) {
            tmp = in[i][j];
            tmp = c0 + tmp * (c1 + tmp * c2);
            out[i][j] = tmp;
        }
    }
}

int main(void)
{
    static float in[N][M], out[N][M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            in[i][j] = INIT2(i, j) * 2.0f - 1.0f;
    poly_eval(out, in, 0.25f, -1.5f, 3.0f);
    dump_float("out", &out[0][0], (long)N * M);
    return 0;
}
