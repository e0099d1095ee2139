/* Row sums and sums of squares (two reductions in one loop, double, with clauses), and the
 * column sums of an int matrix (a loop over rows across lanes). */
#include <stdio.h>

#ifndef N
#define N 45
#endif
#ifndef M
#define M 777
#endif

static double A[N][M], s1[N], s2[N];
static int B[M][N];
static long cs[N];

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            A[i][j] = (double)((i + 2 * j) % 9) - 4.0;
            B[j][i] = (i * 11 + j) % 23 - 11;
        }
#pragma acc parallel loop copyin(A) copyout(s1, s2)
    for (i = 0; i < N; i++) {
        double a = 0.0, b = 0.0;
#pragma acc loop vector reduction(+:a) reduction(+:b)
        for (j = 0; j < M; j++) {
            double v = A[i][j];
            a += v;
            b += v * v;
        }
        s1[i] = a;
        s2[i] = b;
    }
#pragma acc parallel loop copyin(B) copyout(cs)
    for (i = 0; i < N; i++) {
        long c = 0;
#pragma acc loop reduction(+:c)
        for (j = 0; j < M; j++)
            c += B[j][i];
        cs[i] = c;
    }
    for (i = 0; i < N; i++)
        printf("%d %.1f %.1f %ld\n", i, s1[i], s2[i], cs[i]);
    return 0;
}
