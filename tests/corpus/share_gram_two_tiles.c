/* share_gram_two_tiles.c - a Gram matrix G = A·Aᵀ over a long k (strip-mined):
 * A is read as A[i][k] and as A[j][k], so the block needs two tiles of the same
 * array (its rows for i and its rows for j), loaded strip by strip. */
#include "corpus_common.h"

#ifndef N
#define N 83
#endif
#ifndef K
#define K 150
#endif

void gram(double G[N][N], const double A[N][K])
{
#pragma acc share(A[TB_Y][*])
#pragma acc kernels loop independent
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < K; k++)
                s += A[i][k] * A[j][k];
            G[i][j] = s;
        }
    }
}

int main(void)
{
    static double A[N][K], G[N][N];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < K; k++)
            A[i][k] = (double)((i * 7 + k * 3) % 13) - 6.0;
    gram(G, A);
    dump_double("G", &G[0][0], (long)N * N);
    return 0;
}
