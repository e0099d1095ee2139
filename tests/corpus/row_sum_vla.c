/* row_sum_vla.c - row reductions (inner `loop seq` accumulating into a
 * scalar) on double data passed as variable-extent arrays double A[n][m]. */
#include "corpus_common.h"

#ifndef N
#define N 37
#endif
#ifndef M
#define M 257
#endif

void row_stats(int n, int m, double A[n][m], double rsum[n], double rmax[n])
{
#pragma acc parallel loop copyin(A[0:n][0:m]) copyout(rsum[0:n], rmax[0:n])
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        double mx = A[i][0];
#pragma acc loop seq
        for (int j = 0; j < m; j++) {
            s += A[i][j];
            if (A[i][j] > mx)
                mx = A[i][j];
        }
        rsum[i] = s;
        rmax[i] = mx;
    }
}

int main(void)
{
    int n = N, m = M;
    double (*A)[m] = xmalloc(sizeof(double) * n * m);
    double *rsum = xmalloc(sizeof(double) * n);
    double *rmax = xmalloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = (double)((i * 7 + j * 3) % 17) / 17.0 - 0.25 * (double)(j % 5);
    row_stats(n, m, A, rsum, rmax);
    dump_double("rsum", rsum, n);
    dump_double("rmax", rmax, n);
    free(A);
    free(rsum);
    free(rmax);
    return 0;
}
