/* The largest product of each row with a vector: `reduction(max:m)` on the inner loop, from
 * an initial value set before it. */
#include <math.h>
#include <stdio.h>

#ifndef N
#define N 50
#endif
#ifndef M
#define M 999
#endif

static float A[N][M], x[M], out[N];

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (float)((i * 13 + j * 7) % 31 - 15);
    for (j = 0; j < M; j++)
        x[j] = (float)(j % 3 - 1);
#pragma acc parallel loop num_workers(8) copyin(A, x) copyout(out)
    for (i = 0; i < N; i++) {
        float m = (float)(i % 4) - 100.0f;
#pragma acc loop vector reduction(max:m)
        for (j = 0; j < M; j++)
            m = fmaxf(m, A[i][j] * x[j]);
        out[i] = m + 0.5f;
    }
    for (i = 0; i < N; i++)
        printf("%d %.1f\n", i, out[i]);
    return 0;
}
