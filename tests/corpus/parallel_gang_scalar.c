/* parallel_gang_scalar.c - a scalar declared at the top level of a `parallel`
 * construct (one copy per gang) that one loop uses, assigning it before each
 * use in an iteration: each iteration has its own copy. A `while` loop inside
 * repeats an inner reduction until it passes a bound. */
#include "corpus_common.h"

#ifndef N
#define N 500
#endif
#define ROWS 10

int main(void)
{
    int n = N;
    double *a = xmalloc(sizeof(double) * ROWS * N);
    double *avg_out = xmalloc(sizeof(double) * ROWS);
    for (int i = 0; i < ROWS * N; i++)
        a[i] = (double)((i * 13) % 29) * 0.125 + 0.5;
#pragma acc data copy(a[0:ROWS*N]) copyout(avg_out[0:ROWS])
    {
#pragma acc parallel
        {
            double avg = 0.0;
            int rounds;
#pragma acc loop
            for (int y = 0; y < ROWS; ++y) {
                avg = 0.0;
                rounds = 0;
                while (avg < 100.0 + 10.0 * y) {
                    avg = 0.0;
                    rounds = rounds + 1;
#pragma acc loop reduction(+:avg)
                    for (int x = 0; x < n; ++x) {
                        a[n * y + x] *= 1.5;
                        avg += a[n * y + x] / n;
                    }
                }
                avg_out[y] = avg + rounds;
            }
        }
    }
    dump_double("a", a, (long)ROWS * N);
    dump_double("avg", avg_out, ROWS);
    free(a);
    free(avg_out);
    return 0;
}
