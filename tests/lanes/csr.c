/* A sparse matrix-vector product in CSR, written as NPB CG writes it: a `parallel` construct
 * with `num_workers(4) vector_length(32)`, `loop gang` over the rows and `loop worker vector
 * reduction(+:sum)` over each row's nonzeros, whose bounds (`rowstr[j]`, `rowstr[j + 1]`) are
 * not affine. The inner loop runs across lanes because the user asks for it; the scalars are
 * the function's, and the program reads them after the regions (their final values are the
 * last row's). Rows of 0 to 90 nonzeros; values are small integers, exact in any order. */
#include <stdio.h>

#ifndef N
#define N 301
#endif
#define NZ (N * 91)

static int rowstr[N + 1], colidx[NZ];
static double a[NZ], p[N], q[N];
static long iq[N];
static int ia[NZ];

int main(void)
{
    int j, k, tmp1, tmp2, tmp3, nz = 0;
    double sum = 0.0;
    long isum = 0;
    for (j = 0; j < N; j++) {
        rowstr[j] = nz;
        int len = (j * 37) % 91;
        for (k = 0; k < len; k++) {
            colidx[nz] = (j * 13 + k * 7) % N;
            a[nz] = (double)((j + k) % 9 - 4);
            ia[nz] = (j * 3 + k) % 11 - 5;
            nz++;
        }
    }
    rowstr[N] = nz;
    for (j = 0; j < N; j++)
        p[j] = (double)(j % 7 - 3);
    int end = N;

#pragma acc parallel num_gangs(end) num_workers(4) vector_length(32) copyin(rowstr, colidx, a, p) copyout(q)
    {
#pragma acc loop gang
        for (j = 0; j < end; j++) {
            tmp1 = rowstr[j];
            tmp2 = rowstr[j + 1];
            sum = 0.0;
#pragma acc loop worker vector reduction(+:sum)
            for (k = tmp1; k < tmp2; k++) {
                tmp3 = colidx[k];
                sum = sum + a[k] * p[tmp3];
            }
            q[j] = sum;
        }
    }
    printf("after the first product: sum %.1f tmp1 %d tmp2 %d\n", sum, tmp1, tmp2);

#pragma acc parallel loop gang vector_length(64) copyin(rowstr, colidx, ia) copyout(iq)
    for (j = 0; j < end; j++) {
        long s = 0;
#pragma acc loop vector reduction(+:s)
        for (k = rowstr[j]; k < rowstr[j + 1]; k++)
            s += ia[k] * (long)(colidx[k] + 1);
        iq[j] = s;
        isum = s;
    }
    printf("after the second product: isum %ld\n", isum);

    for (j = 0; j < N; j++)
        printf("%d %.1f %ld\n", j, q[j], iq[j]);
    return 0;
}
