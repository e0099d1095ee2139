/* reduce_grid_stride.c - reductions over the grid loops in the shapes a grid-stride kernel
 * (each work-item accumulating several iterations before the tree) must keep: a triangular
 * collapse(2) nest (the inner bound depends on the strided iterator), a negative step, a lower
 * bound and a step past 1, a 3-D nest, a max, and a scalar whose last value the host reads.
 * Values are integers (exact in double), so the sums do not depend on their order. */
#include "corpus_common.h"

#ifndef N
#define N 3001
#endif
#ifndef M
#define M 67
#endif

int main(void)
{
    int *v = xmalloc(sizeof(int) * N);
    double (*g)[M][M] = xmalloc(sizeof(double[M][M][M]));
    for (int i = 0; i < N; i++)
        v[i] = (i * 13 + 5) % 23 - 11;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            for (int k = 0; k < M; k++)
                g[i][j][k] = (double)((i * 5 + j * 3 + k) % 9);

    long tri = 0;
#pragma acc parallel loop collapse(2) reduction(+:tri) copyin(v[0:N])
    for (int i = 0; i < M; i++)
        for (int j = i; j < M; j++)
            tri += v[(i * M + j) % N] * (j - i + 1);

    int down = 0;
#pragma acc parallel loop reduction(+:down) copyin(v[0:N])
    for (int i = N - 1; i >= 0; i -= 2)
        down += v[i];

    int every3 = 0, big = -1000;
#pragma acc parallel loop reduction(+:every3) reduction(max:big) copyin(v[0:N])
    for (int i = 5; i < N; i += 3) {
        every3 += v[i] * i;
        big = v[i] * (i % 7) > big ? v[i] * (i % 7) : big;
    }

    double cube = 0.0;
#pragma acc parallel loop collapse(3) reduction(+:cube) copyin(g[0:M][0:M][0:M])
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            for (int k = 0; k < M; k++)
                cube += g[i][j][k] * g[k][j][i];

    int t = 0;
    long sq = 0;
#pragma acc parallel loop reduction(+:sq) copyin(v[0:N])
    for (int i = 0; i < N; i++) {
        t = v[i] * 2;
        sq += (long)t * t;
    }

    int out[6] = {(int)tri, down, every3, big, (int)cube, (int)(sq + t)};
    dump_int("reductions", out, 6);
    free(v);
    free(g);
    return 0;
}
