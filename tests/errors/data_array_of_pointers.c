/* Arrays of pointers to rows (`double **m`, each row allocated on its own) are copied row by
 * row (OpenACC's deep copy) where a data clause gives every bound, the rows from element 0
 * (`copyin(m[0:n][0:n])` and `copy(sum)` below are accepted). The forms refused: a clause
 * without the rows' bounds, rows from past element 0, a pointer to pointers to pointers, and a
 * compute region that no clause gives the rows' bounds to. */
#include <stdlib.h>

double rows_sum(double **m, int n)
{
    double sum = 0.0;
#pragma acc data copyin(m[0:n][0:n]) copy(sum)
    {
#pragma acc parallel loop reduction(+:sum)
        for (int i = 0; i < n; i++)
            sum += m[i][0];
    }
    return sum;
}

void no_row_bounds(double **a, int n)
{
#pragma acc parallel loop copy(a[0:n])
    for (int i = 0; i < n; i++)
        a[i][0] = 0.0;
}

void rows_past_zero(float **a, int n, int m)
{
#pragma acc data copy(a[0:n][1:m - 1])
    {
#pragma acc parallel loop
        for (int i = 0; i < n; i++)
            a[i][1] = 1.0f;
    }
}

void three_levels(double ***t, int n)
{
#pragma acc enter data copyin(t[0:n][0:n][0:n])
}

void entered_elsewhere(double **a, int n)
{
#pragma acc parallel loop
    for (int i = 0; i < n; i++)
        a[i][i] = 1.0;
}
