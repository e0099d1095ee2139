/* bank_mv_double.c - matrix-vector product in double precision: the staged tile of `A` is
 * walked down a column by consecutive work-items, 8-byte elements on 4-byte banks (served by
 * half-warps); padding makes the degree 1 on every shipped GPU. */
#include "corpus_common.h"

#ifndef N
#define N 300
#endif
#ifndef M
#define M 200
#endif

void mv_double(double y[N], double A[N][M], double x[M])
{
#pragma acc kernels loop independent copyin(A[0:N][0:M], x[0:M]) copyout(y[0:N])
    for (int i = 0; i < N; i++) {
        double s = 0.0;
        for (int j = 0; j < M; j++)
            s += A[i][j] * x[j];
        y[i] = s;
    }
}

int main(void)
{
    static double A[N][M], x[M], y[N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = (double)((i * 7 + j * 3) % 17) / 8.0 - 1.0;
    for (int j = 0; j < M; j++)
        x[j] = (double)(j % 13) / 4.0;
    mv_double(y, A, x);
    dump_double("y", y, N);
    return 0;
}
