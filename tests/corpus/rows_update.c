/* rows_update.c - `enter data`, `update self`, `update device` and `exit data` of a matrix
 * allocated row by row (`int **`): the host reads the device's rows between kernels, changes
 * some rows and sends them back (a part starting past row 0). */
#include "corpus_common.h"

#ifndef N
#define N 23
#endif
#ifndef M
#define M 31
#endif

int main(void)
{
    int n = N, m = M;
    int **a = xmalloc(n * sizeof *a);
    int snap[N * M];
    for (int i = 0; i < n; i++) {
        a[i] = xmalloc(m * sizeof **a);
        for (int j = 0; j < m; j++)
            a[i][j] = i * 1000 + j;
    }
#pragma acc enter data copyin(a[0:n][0:m])
#pragma acc parallel loop collapse(2) present(a[0:n][0:m])
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = a[i][j] * 2 + 1;
#pragma acc update self(a[0:n][0:m])
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            snap[i * m + j] = a[i][j];
    for (int i = 2; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = -a[i][j];
#pragma acc update device(a[2:n - 2][0:m])
#pragma acc parallel loop collapse(2) present(a[0:n][0:m])
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] += j;
#pragma acc exit data copyout(a[0:n][0:m])
    dump_int("snap", snap, (long)n * m);
    for (int i = 0; i < n; i++)
        dump_int("a", a[i], m);
    return 0;
}
