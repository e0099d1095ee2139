/* An inner `loop independent` updates `t2` with a `max` that no enclosing `reduction` clause
 * names (the outer loop declares `s` and `temp` only): the loop carries a dependence. */
#define N 64
#define M 48
#define max(a, b) ((a) > (b) ? (a) : (b))
double a[N][M];

double stats(void)
{
    double s = 0.0, temp = -1e30, t2 = -1e30;
#pragma acc parallel loop reduction(+:s) reduction(max:temp) copyin(a)
    for (int i = 0; i < N; i++) {
#pragma acc loop independent reduction(+:s) reduction(max:temp)
        for (int j = 0; j < M; j++) {
            s += a[i][j];
            temp = max(temp, a[i][j]);
            t2 = a[i][j] > t2 ? a[i][j] : t2;
        }
    }
    return s + temp + t2;
}
