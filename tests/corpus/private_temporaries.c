/* private_temporaries.c - scalars of the function (declared at its top, as NPB and older C code
 * do) that each iteration of a parallel loop assigns before using: under a condition and used
 * under it, in both branches of an if/else, after an inner loop, as the bounds of an inner loop
 * (a CSR sparse product, NPB CG's `tmp1 = rowstr[j]`). All private to each iteration: the
 * loops run on the grid. */
#include "corpus_common.h"

#ifndef N
#define N 83
#endif
#define NNZ (3 * N)

void kernels(int n, const int rowstr[N + 1], const int colidx[NNZ], const double a[NNZ],
             const double p[N], double q[N], double x[N], double y[N], double z[N][8])
{
    int j, k, i, i1, tmp1, tmp2;
    double sum, t;
#pragma acc parallel loop copyin(rowstr[0:n+1], colidx[0:NNZ], a[0:NNZ], p[0:n]) copyout(q[0:n])
    for (j = 0; j < n; j++) {
        tmp1 = rowstr[j];
        tmp2 = rowstr[j + 1];
        sum = 0.0;
        for (k = tmp1; k < tmp2; k++)
            sum = sum + a[k] * p[colidx[k]];
        q[j] = sum;
    }
#pragma acc parallel loop copyin(x[0:n]) copy(y[0:n])
    for (k = 0; k < n; k++) {
        for (i = 0; i < 4; i++) {
            if (x[k] > (double)i) {
                t = x[k] * i;
                y[k] += t;
            }
        }
        if (k % 3 == 0)
            t = x[k];
        else
            t = -x[k];
        y[k] = y[k] + 2.0 * t;
    }
#pragma acc parallel loop copy(z[0:n][0:8])
    for (k = 0; k < n; k++) {
        for (i = 0; i < 6; i++) {
            i1 = i + 1;
            z[k][i1] += z[k][i];
        }
        i1 = 7;
        z[k][i1] *= 2.0;
    }
}

int main(void)
{
    static int rowstr[N + 1], colidx[NNZ];
    static double a[NNZ], p[N], q[N], x[N], y[N], z[N][8];
    int nz = 0;
    for (int j = 0; j < N; j++) {
        rowstr[j] = nz;
        for (int c = 0; c < 1 + j % 3; c++) {
            colidx[nz] = (j * 7 + c * 13) % N;
            a[nz] = (double)((j + c) % 5) - 2.0;
            nz++;
        }
        p[j] = (double)(j % 7) / 7.0;
        x[j] = (double)((j * 11) % 9) / 2.0;
        y[j] = (double)(j % 4);
        for (int c = 0; c < 8; c++)
            z[j][c] = (double)(j + c) / 8.0;
    }
    rowstr[N] = nz;
    kernels(N, rowstr, colidx, a, p, q, x, y, z);
    dump_double("q", q, N);
    dump_double("y", y, N);
    dump_double("z", &z[0][0], (long)N * 8);
    return 0;
}
