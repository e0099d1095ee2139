/* rows_jacobi.c - a 2-D Jacobi sweep on grids allocated row by row (`double **`): `copy(u)`
 * copies each row in and back, `create(v)` makes the scratch grid's rows on the device only. */
#include "corpus_common.h"

#ifndef N
#define N 34
#endif
#ifndef M
#define M 41
#endif
#ifndef ITERS
#define ITERS 5
#endif

int main(void)
{
    int n = N, m = M;
    double **u = malloc(n * sizeof(double *));
    double **v = malloc(n * sizeof(double *));
    for (int i = 0; i < n; i++) {
        u[i] = malloc(m * sizeof(double));
        v[i] = malloc(m * sizeof(double));
        for (int j = 0; j < m; j++) {
            u[i][j] = (i == 0 || j == 0) ? 1.0 : INIT2(i, j);
            v[i][j] = 0.0;
        }
    }
#pragma acc data copy(u[0:n][0:m]) create(v[0:n][0:m])
    for (int it = 0; it < ITERS; it++) {
#pragma acc parallel loop collapse(2)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < m - 1; j++)
                v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
#pragma acc parallel loop collapse(2)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < m - 1; j++)
                u[i][j] = v[i][j];
    }
    for (int i = 0; i < n; i++)
        dump_double("u", u[i], m);
    return 0;
}
