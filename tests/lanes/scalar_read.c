/* The scalar is read inside the loop beyond its update: not a reduction, never across lanes. */
#include <stdio.h>

#ifndef N
#define N 67
#endif
#ifndef M
#define M 1001
#endif

static int A[N][M], y[N];

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (i * 7 + j * 3) % 17 - 8;
#pragma acc parallel loop copyin(A) copyout(y)
    for (i = 0; i < N; i++) {
        int s = 0;
#pragma acc loop
        for (j = 0; j < M; j++)
            s += A[i][j] * (s > 100 ? 0 : 1);
        y[i] = s;
    }
    for (i = 0; i < N; i++)
        printf("%d %d\n", i, y[i]);
    return 0;
}
