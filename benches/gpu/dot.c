/* dot.c - s = sum x[i]*y[i] and m = max |x[i] - y[i]| over N doubles (default 2^22):
 * the reductions over a whole grid loop that a grid-stride kernel serves (issue 27). The
 * values are multiples of 1/8 below 2^10, so every partial sum is exact and the result does
 * not depend on the order of the additions. */
#include "five.h"

#ifndef N
#define N 4194304L
#endif

static void init(double *x, double *y)
{
    long i;
    for (i = 0; i < N; i++) {
        x[i] = (double)((i * 7) % 13) * 0.125;
        y[i] = (double)((i * 5) % 11) * 0.25 - 1.0;
    }
}

static double kernel_dot(const double *x, const double *y, double *out)
{
    long i;
    double s = 0.0, m = 0.0;
    double t0 = five_now();
#pragma acc parallel loop reduction(+:s) reduction(max:m) copyin(x[0:N], y[0:N])
    for (i = 0; i < N; i++) {
        double d = x[i] - y[i];
        s += x[i] * y[i];
        m = d > m ? d : (-d > m ? -d : m);
    }
    out[0] = s;
    out[1] = m;
    return five_now() - t0;
}

int main(void)
{
    double *x = five_alloc(sizeof(double) * N);
    double *y = five_alloc(sizeof(double) * N);
    double out[2];
    float outf[2];
    int r;

    init(x, y);
    for (r = 0; r < REPS; r++)
        five_time(kernel_dot(x, y, out));
    fprintf(FIVE_REPORT, "checksum %.17g %.17g\n", out[0], out[1]);
    outf[0] = (float)out[0];
    outf[1] = (float)out[1];
    five_dump_float("out", outf, 2);
    free(x);
    free(y);
    return 0;
}
