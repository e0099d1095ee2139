/* atax_vla.c - PolyBench ATAX (y = A^T (A x)) with variable-extent array
 * parameters float A[m][n]; two kernels share one data region, the second
 * reads A by column. */
#include "corpus_common.h"

#ifndef MM
#define MM 61
#endif
#ifndef NN
#define NN 101
#endif

void atax(int m, int n, float A[m][n], float x[n], float y[n], float tmp[m])
{
#pragma acc data copyin(A[0:m][0:n], x[0:n]) create(tmp[0:m]) copyout(y[0:n])
    {
#pragma acc parallel loop
        for (int i = 0; i < m; i++) {
            float s = 0.0f;
#pragma acc loop seq
            for (int j = 0; j < n; j++)
                s += A[i][j] * x[j];
            tmp[i] = s;
        }
#pragma acc parallel loop
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
#pragma acc loop seq
            for (int i = 0; i < m; i++)
                s += A[i][j] * tmp[i];
            y[j] = s;
        }
    }
}

int main(void)
{
    int m = MM, n = NN;
    float (*A)[n] = xmalloc(sizeof(float) * m * n);
    float *x = xmalloc(sizeof(float) * n);
    float *y = xmalloc(sizeof(float) * n);
    float *tmp = xmalloc(sizeof(float) * m);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = INIT2(i, j);
    for (int j = 0; j < n; j++)
        x[j] = 1.0f + (float)j / (float)n;
    atax(m, n, A, x, y, tmp);
    dump_float("y", y, n);
    free(A);
    free(x);
    free(y);
    free(tmp);
    return 0;
}
