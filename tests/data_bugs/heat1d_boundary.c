/* planted: device
 * from: tests/corpus/heat1d_double.c
 * flags: 
 * change: a boundary value set on the host inside the data region, without `update device` */
/* heat1d_double.c - 1-D heat equation on double data; the host time loop is
 * a do { } while around two kernels (update, copy back) in a data region. */
#include "../corpus/corpus_common.h"

#ifndef N
#define N 1000
#endif
#ifndef STEPS
#define STEPS 50
#endif

void heat1d(int n, int steps, double *u, double *v, double nu)
{
    int t = 0;
#pragma acc data copy(u[0:n]) create(v[0:n])
    {
        do {
            u[0] = 1.0;
#pragma acc parallel loop present(u[0:n], v[0:n])
            for (int i = 1; i < n - 1; i++)
                v[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
#pragma acc parallel loop present(u[0:n], v[0:n])
            for (int i = 1; i < n - 1; i++)
                u[i] = v[i];
            t++;
        } while (t < steps);
    }
}

int main(void)
{
    double *u = xmalloc(sizeof(double) * N);
    double *v = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        u[i] = (i > N / 3 && i < 2 * N / 3) ? 100.0 : (double)(i % 7);
        v[i] = 0.0;
    }
    heat1d(N, STEPS, u, v, 0.25);
    dump_double("u", u, N);
    free(u);
    free(v);
    return 0;
}
