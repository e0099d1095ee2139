/* A compute region may index a row-allocated matrix whose rows a data clause copies
 * (`a[i][j]`), but not take a row as a pointer (`a[i]`): the device copy is one block of rows,
 * with no pointers. */
void scale_rows(double **a, int n, int m)
{
#pragma acc parallel loop copy(a[0:n][0:m])
    for (int i = 0; i < n; i++) {
        double *row = a[i];
        for (int j = 0; j < m; j++)
            row[j] = 2.0 * row[j];
    }
}
