/* reduce_sum_int.c - scalar `reduction(+:sum)` over an int array (exact, so
 * the result cannot depend on the order of the parallel sum). */
#include "corpus_common.h"

#ifndef N
#define N 100003
#endif

int sum_weighted(int n, const int *v)
{
    int sum = 0;
#pragma acc parallel loop reduction(+:sum) copyin(v[0:n])
    for (int i = 0; i < n; i++)
        sum += (v[i] % 3 == 0) ? 2 * v[i] : v[i];
    return sum;
}

int main(void)
{
    int *v = xmalloc(sizeof(int) * N);
    int total[1];
    for (int i = 0; i < N; i++)
        v[i] = (i * 7 + 3) % 17 - 5;
    total[0] = sum_weighted(N, v);
    dump_int("sum", total, 1);
    free(v);
    return 0;
}
