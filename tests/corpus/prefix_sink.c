/* prefix_sink.c - nests that are perfect but for scalar statements between the loop headers
 * (NPB MG's rprj3: `i3 = 2*j3-d3;` before the `loop worker`, `i2 = 2*j2-d2;` before the
 * `loop vector`). The inner loops go to the grid too, each work-item computing the scalars
 * itself; where the function reads such a scalar after the region (`last`), or an inner loop
 * may run no iteration, the sequential final value must survive. */
#include "corpus_common.h"

#ifndef N
#define N 37
#endif
#ifndef M
#define M 29
#endif

int main(void)
{
    double *in = xmalloc(sizeof(double) * (2 * N + 3) * (2 * M + 3));
    double *out = xmalloc(sizeof(double) * N * M);
    double *out2 = xmalloc(sizeof(double) * N * M);
    int j2, j1, i2, i1, last, d = 1, w = 2 * M + 3;
    for (int k = 0; k < (2 * N + 3) * w; k++)
        in[k] = (double)((k * 7) % 13) - 6.0;
    for (int k = 0; k < N * M; k++) {
        out[k] = -1.0;
        out2[k] = -1.0;
    }

    /* rprj3's shape: a scalar per level, declared in the function, read by nothing after. */
#pragma acc parallel loop gang copyin(in[0:(2 * N + 3) * (2 * M + 3)]) copy(out[0:N * M])
    for (j2 = 1; j2 < N - 1; j2++) {
        i2 = 2 * j2 - d;
#pragma acc loop vector
        for (j1 = 1; j1 < M - 1; j1++) {
            i1 = 2 * j1 - d;
            out[j2 * M + j1] = 0.5 * in[(i2 + 1) * w + i1 + 1] + 0.25 * (in[i2 * w + i1 + 1] + in[(i2 + 2) * w + i1 + 1]);
        }
    }

    /* Declared in the body, two statements, the second reading the first. */
#pragma acc parallel loop copyin(in[0:(2 * N + 3) * (2 * M + 3)]) copy(out2[0:N * M])
    for (int a = 0; a < N; a++) {
        int row = 2 * a + 1;
        int base = row * w + (a % 3);
#pragma acc loop
        for (int b = 0; b < M; b++)
            out2[a * M + b] = in[base + 2 * b] - in[base + b];
    }

    /* `last` is read after the region: the nest keeps its inner loop in each work-item, so
     * that `last` gets its sequential value even where the inner loop runs no iteration. */
    double (*out3)[M] = xmalloc(sizeof(double[N][M]));
    int lasts[2];
    for (int round = 0; round < 2; round++) {
        int inner = round == 0 ? 0 : M / 3; /* no iteration, then some */
        for (int k = 0; k < N * M; k++)
            out3[k / M][k % M] = 0.0;
        last = -1;
#pragma acc parallel loop copy(out3[0:N][0:M])
        for (int a = 0; a < N; a++) {
            last = a * 3 + 1;
#pragma acc loop
            for (int b = 0; b < inner; b++)
                out3[a][b] = (double)(last + b);
        }
        lasts[round] = last;
        dump_double(round == 0 ? "out3_none" : "out3_some", &out3[0][0], (long)N * M);
    }
    dump_int("last", lasts, 2);
    free(out3);

    dump_double("out", out, (long)N * M);
    dump_double("out2", out2, (long)N * M);
    free(in);
    free(out);
    free(out2);
    return 0;
}
