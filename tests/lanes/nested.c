/* An inner reduction loop with a scalar of the function written before it is read in each
 * iteration (privatized) and a loop of its own; the row's sum and a count (`&&`-free integer
 * reductions of two operators: + and max). */
#include <stdio.h>

#ifndef N
#define N 70
#endif
#ifndef M
#define M 1500
#endif

static int A[N][M], w[3], y[N], z[N];

int main(void)
{
    int i, j, k, t;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (i * 7 + j * 3) % 19 - 9;
    for (k = 0; k < 3; k++)
        w[k] = k + 1;
#pragma acc parallel loop copyin(A, w) copyout(y, z)
    for (i = 0; i < N; i++) {
        int s = i;
        int m = -1000;
#pragma acc loop reduction(+:s) reduction(max:m)
        for (j = 0; j < M; j++) {
            t = A[i][j];
            for (k = 0; k < 3; k++)
                t += w[k] * (j % 2);
            s += t;
            m = t > m ? t : m;
        }
        y[i] = s;
        z[i] = m;
    }
    for (i = 0; i < N; i++)
        printf("%d %d %d\n", i, y[i], z[i]);
    return 0;
}
