/* mv with the user's permission to reorder: a `reduction` clause on the inner `loop vector`;
 * `num_workers(4)`: four rows per block, which read `x` once through local memory. */
#include <stdio.h>

#ifndef N
#define N 67
#endif
#ifndef M
#define M 1001
#endif

static float A[N][M], x[M], y[N];

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (float)((i * 7 + j * 3) % 17 - 8);
    for (j = 0; j < M; j++)
        x[j] = (float)(j % 5 - 2);
#pragma acc parallel loop num_workers(4) copyin(A, x) copyout(y)
    for (i = 0; i < N; i++) {
        float sum = 0.0f;
#pragma acc loop vector reduction(+:sum)
        for (j = 0; j < M; j++)
            sum += A[i][j] * x[j];
        y[i] = sum;
    }
    for (i = 0; i < N; i++)
        printf("%d %.1f\n", i, y[i]);
    return 0;
}
