/* rows_gemm.c - C = A * B on `float **` matrices allocated row by row, in a compute region
 * whose own clauses give the rows' bounds: the kernel sees 2-D arrays, so the partition
 * engine and the staging of tiles in local memory work on it as on `float a[N][K]`. */
#include "corpus_common.h"

#ifndef NI
#define NI 32
#endif
#ifndef NJ
#define NJ 32
#endif
#ifndef NK
#define NK 24
#endif

static float **matrix(int n, int m)
{
    float **a = (float **)xmalloc(n * sizeof(float *));
    for (int i = 0; i < n; i++)
        a[i] = (float *)xmalloc(m * sizeof(float));
    return a;
}

static void gemm(float **A, float **B, float **C)
{
#pragma acc parallel loop collapse(2) copyin(A[0:NI][0:NK], B[0:NK][0:NJ]) copyout(C[0:NI][0:NJ])
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            float s = 0.0f;
            for (int k = 0; k < NK; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
}

int main(void)
{
    float **A = matrix(NI, NK), **B = matrix(NK, NJ), **C = matrix(NI, NJ);
    for (int i = 0; i < NI; i++)
        for (int k = 0; k < NK; k++)
            A[i][k] = INIT2(i, k);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            B[k][j] = INIT2(j, k) - 0.5f;
    gemm(A, B, C);
    for (int i = 0; i < NI; i++)
        dump_float("C", C[i], NJ);
    return 0;
}
