/* `reduction` clauses on the outer loop only, updated in an inner `loop independent` (OpenACC
 * 2.5/2.6 style; 2.7 wants the clause on every loop of the nest): accepted as reductions over
 * the nest, with a warning. `max` as a macro and as a conditional expression. */
#define N 64
#define M 48
#define max(a, b) ((a) > (b) ? (a) : (b))
double a[N][M];

double stats(void)
{
    double s = 0.0, temp = -1e30, t2 = -1e30;
#pragma acc parallel loop reduction(+:s) reduction(max:temp) reduction(max:t2) copyin(a)
    for (int i = 0; i < N; i++) {
#pragma acc loop independent
        for (int j = 0; j < M; j++) {
            s += a[i][j];
            temp = max(temp, a[i][j]);
            t2 = a[i][j] > t2 ? a[i][j] : t2;
        }
    }
    return s + temp + t2;
}
