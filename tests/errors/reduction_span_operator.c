/* The outer loop declares `reduction(+:m)` but the inner `loop independent` updates `m` with a
 * `max`: the clause does not span the inner loop, which carries a dependence. */
#define N 64
#define M 48
#define max(a, b) ((a) > (b) ? (a) : (b))
double a[N][M];

double largest(void)
{
    double m = -1e30;
#pragma acc parallel loop reduction(+:m) copyin(a)
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < M; j++)
            m = max(m, a[i][j]);
    }
    return m;
}
