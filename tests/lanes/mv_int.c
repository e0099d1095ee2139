/* An integer mv: reordering is exact, the inner loop runs across lanes without permission.
 * The initial value and the statements after the loop are the row's. */
#include <stdio.h>

#ifndef N
#define N 67
#endif
#ifndef M
#define M 1001
#endif

static int A[N][M], x[M], y[N];

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (i * 7 + j * 3) % 17 - 8;
    for (j = 0; j < M; j++)
        x[j] = j % 5 - 2;
#pragma acc parallel loop vector_length(64) copyin(A, x) copyout(y)
    for (i = 0; i < N; i++) {
        int base = i * 3 - 50;
        int sum = base + 1;
#pragma acc loop
        for (j = 0; j < M; j++)
            sum += A[i][j] * x[j];
        y[i] = sum * 2 - base;
    }
    for (i = 0; i < N; i++)
        printf("%d %d\n", i, y[i]);
    return 0;
}
