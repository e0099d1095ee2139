/* column_walk.c - nests written column by column, as code ported from Fortran often is: the
 * outer parallel loop walks the arrays' last (contiguous) dimension. With the innermost loop on
 * x every warp would touch one row per lane; accshare maps the loop that walks the last
 * dimension to x instead (analysis::mapping, seed 000's thread-geometry permutation).
 * Extents leave partial blocks in every dimension. */
#include "corpus_common.h"

#ifndef N
#define N 70
#endif
#ifndef M
#define M 45
#endif
#ifndef L
#define L 9
#endif

static float A[N][M], B[N][M], w[M];
static float C[N][L][M], D[N][L][M];
static float T[M][M];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = INIT2(i, j);
    for (int j = 0; j < M; j++)
        w[j] = 0.5f + (float)(j % 5) / 4.0f;
    for (int i = 0; i < N; i++)
        for (int l = 0; l < L; l++)
            for (int j = 0; j < M; j++)
                C[i][l][j] = INIT2(i + l, j);

    /* 2-D: j walks the last dimension from the outer loop; a sequential loop inside. */
#pragma acc parallel loop collapse(2) copyin(A, w) copyout(B)
    for (int j = 0; j < M; j++)
        for (int i = 0; i < N; i++) {
            float s = 0.0f;
            for (int t = 0; t < 4; t++)
                s += (i + t < N) ? A[i + t][j] : 0.0f;
            B[i][j] = w[j] * s;
        }

    /* 3-D: the outermost loop walks the last dimension. */
#pragma acc parallel loop collapse(3) copyin(C) copyout(D)
    for (int j = 0; j < M; j++)
        for (int l = 0; l < L; l++)
            for (int i = 0; i < N; i++)
                D[i][l][j] = 2.0f * C[i][l][j] - (l > 0 ? C[i][l - 1][j] : 0.0f);

    /* Triangular: the inner loop's bound depends on the loop that goes to x. */
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            T[i][j] = INIT2(j, i);
#pragma acc parallel loop collapse(2) copy(T)
    for (int j = 0; j < M; j++)
        for (int i = 0; i <= j; i++)
            T[i][j] = 0.5f * T[i][j] + (float)(j - i);

    dump_float("B", &B[0][0], (long)N * M);
    dump_float("D", &D[0][0][0], (long)N * L * M);
    dump_float("T", &T[0][0], (long)M * M);
    return 0;
}
