/* mv as benches/five writes it: `loop seq` on the dot product (across lanes only under
 * --reassociate). */
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
            A[i][j] = (float)((i * 5 + j * 3) % 13 - 6);
    for (j = 0; j < M; j++)
        x[j] = (float)(j % 7 - 3);
#pragma acc parallel loop copyin(A, x) copyout(y)
    for (i = 0; i < N; i++) {
        float sum = 0.0f;
#pragma acc loop seq
        for (j = 0; j < M; j++)
            sum += A[i][j] * x[j];
        y[i] = sum;
    }
    for (i = 0; i < N; i++)
        printf("%d %.1f\n", i, y[i]);
    return 0;
}
