/* column_sums_interchange.c - loops whose parallel loop is the inner one, as data-mining and
 * statistics codes write them: `parallel loop` on the row loop, `loop` on the column loop,
 * the column sums carried by the row loop. accshare interchanges the two loops (the column
 * loop on the grid, the rows in order in each work-item: the same sums, in the same order).
 * A nest with a diagonal dependence (the inner loop's distance is not zero) must not be
 * interchanged and runs in order; a kernels construct and a 3-deep nest are interchanged too. */
#include "corpus_common.h"

#ifndef N
#define N 67
#endif
#ifndef M
#define M 45
#endif
#ifndef K
#define K 9
#endif

void column_stats(float data[N][M], float mean[M], float sq[M], int hist[M])
{
    int i, j;
#pragma acc parallel loop copyin(data[0:N][0:M]) copy(mean[0:M])
    for (i = 0; i < N; i++) {
#pragma acc loop
        for (j = 0; j < M; j++)
            mean[j] += data[i][j];
    }
#pragma acc kernels loop copyin(data[0:N][0:M]) copy(sq[0:M], hist[0:M])
    for (i = 0; i < N; i++) {
#pragma acc loop independent
        for (j = 0; j < M; j++) {
            sq[j] = sq[j] + data[i][j] * data[i][j];
            if (data[i][j] > 0.5f)
                hist[j] += 1;
        }
    }
}

/* u[i][j] depends on u[i-1][j+1]: the inner distance is -1, so no interchange; the row loop
 * carries the dependence and the nest runs in order. */
void diagonal_sweep(float u[N][M])
{
#pragma acc parallel loop copy(u[0:N][0:M])
    for (int i = 1; i < N; i++) {
#pragma acc loop
        for (int j = 0; j < M - 1; j++)
            u[i][j] = 0.5f * (u[i][j] + u[i - 1][j + 1]);
    }
}

/* A time-like outer loop over a 3-deep nest: t carries the dependence, (p, q) are independent
 * for each t; after the interchange p is on the grid, t runs in order inside. */
void accumulate3(float acc[M][K], float w[N][M][K])
{
#pragma acc parallel loop copyin(w[0:N][0:M][0:K]) copy(acc[0:M][0:K])
    for (int t = 0; t < N; t++) {
#pragma acc loop
        for (int p = 0; p < M; p++) {
#pragma acc loop
            for (int q = 0; q < K; q++)
                acc[p][q] = acc[p][q] * 0.75f + w[t][p][q];
        }
    }
}

int main(void)
{
    float (*data)[M] = xmalloc(sizeof(float[N][M]));
    float (*u)[M] = xmalloc(sizeof(float[N][M]));
    float (*w)[M][K] = xmalloc(sizeof(float[N][M][K]));
    float mean[M], sq[M], acc[M][K];
    int hist[M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            data[i][j] = (float)((i * 13 + j * 7) % 23) / 23.0f;
            u[i][j] = (float)((i + 2 * j) % 5);
            for (int k = 0; k < K; k++)
                w[i][j][k] = (float)((i + j + k) % 7) * 0.125f;
        }
    for (int j = 0; j < M; j++) {
        mean[j] = 0.0f;
        sq[j] = 1.0f;
        hist[j] = 0;
        for (int k = 0; k < K; k++)
            acc[j][k] = 0.0f;
    }
    column_stats(data, mean, sq, hist);
    diagonal_sweep(u);
    accumulate3(acc, w);
    dump_float("mean", mean, M);
    dump_float("sq", sq, M);
    dump_int("hist", hist, M);
    dump_float("u", &u[0][0], (long)N * M);
    dump_float("acc", &acc[0][0], (long)M * K);
    free(data);
    free(u);
    free(w);
    return 0;
}
