/* plain_gemm.c - C = alpha * A * B + beta * C written as plain OpenACC (no
 * share pragma): `parallel loop` on i, `loop` on j, a sequential k loop with a
 * scalar accumulator. The engine induces the seeds a programmer would write
 * (A[TB_Y][*], B[*][TB_X]); the extents (67 x 101 x 83) leave partial tiles
 * and a partial strip at every edge. */
#include "corpus_common.h"

#ifndef NI
#define NI 67
#endif
#ifndef NK
#define NK 101
#endif
#ifndef NJ
#define NJ 83
#endif

void gemm(float alpha, float beta, float C[NI][NJ], float A[NI][NK], float B[NK][NJ])
{
#pragma acc parallel loop copyin(A, B) copy(C)
    for (int i = 0; i < NI; i++) {
#pragma acc loop
        for (int j = 0; j < NJ; j++) {
            float sum = 0.0f;
            for (int k = 0; k < NK; k++)
                sum += A[i][k] * B[k][j];
            C[i][j] = alpha * sum + beta * C[i][j];
        }
    }
}

int main(void)
{
    static float A[NI][NK], B[NK][NJ], C[NI][NJ];
    for (int i = 0; i < NI; i++) {
        for (int k = 0; k < NK; k++)
            A[i][k] = INIT2(i, k);
        for (int j = 0; j < NJ; j++)
            C[i][j] = (float)((i + 2 * j) % 7) / 7.0f;
    }
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            B[k][j] = INIT2(j, k) - 0.5f;
    gemm(1.5f, 1.2f, C, A, B);
    dump_float("C", &C[0][0], (long)NI * NJ);
    return 0;
}
