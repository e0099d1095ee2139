/* Scalars in data clauses are one-element device copies (`copy(sum)` below is accepted); an
 * array of pointers is not: OpenACC copies each row a pointer-to-pointer subarray names and
 * attaches it to the pointer array's device copy (a deep copy), which accshare does not do. */
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
