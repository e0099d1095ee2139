/* rows_matadd.c - matrices allocated row by row (`double **`, one `malloc` per row), as users
 * write them, in a data region: `copyin(A[0:n][0:m])` copies each row to the device (OpenACC's
 * deep copy), `copyout(C[0:n][0:m])` copies each row back; the kernels index them as 2-D
 * arrays. A routine's region over the same rows finds them with `present`, from row 1. */
#include "corpus_common.h"

#ifndef N
#define N 37
#endif
#ifndef M
#define M 29
#endif

/* A routine working on the caller's device copy: `present` finds the rows by the pointers'
 * addresses, here from row 1. */
static void subtract_above(double **C, double **A, int n, int m)
{
#pragma acc kernels loop present(C[1:n - 1][0:m], A[0:n][0:m])
    for (int i = 1; i < n; i++)
        for (int j = 0; j < m; j++)
            C[i][j] = C[i][j] - A[i - 1][j];
}

static double **rows(int n, int m)
{
    double **a = xmalloc(n * sizeof *a);
    for (int i = 0; i < n; i++)
        a[i] = xmalloc(m * sizeof **a);
    return a;
}

int main(void)
{
    int n = N, m = M;
    double **A = rows(n, m), **B = rows(n, m), **C = rows(n, m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            A[i][j] = INIT2(i, j);
            B[i][j] = (double)(i - j) / 8.0;
            C[i][j] = -1.0;
        }
#pragma acc data copyin(A[0:n][0:m], B[0:n][0:m]) copyout(C[0:n][0:m])
    {
#pragma acc parallel loop collapse(2)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                C[i][j] = A[i][j] + 2.0 * B[i][j];
        subtract_above(C, A, n, m);
    }
    for (int i = 0; i < n; i++)
        dump_double("C", C[i], m);
    return 0;
}
