/* syr2k_full_double.c - PolyBench's syr2k over the whole matrix, in double:
 * C = alpha * (A * B^T + B * A^T) + beta * C, written as plain OpenACC. Every
 * operand is read along its row (`A[i][k]`, `A[j][k]`, `B[i][k]`, `B[j][k]`), so
 * a micro-tile stores all four tiles k-major; 8-byte elements make its vector
 * reads `double2`. The default extents (NI = 100, NK = 72) leave partial tiles
 * and a partial strip; NI a multiple of 128 with NK a multiple of 16 is whole
 * tiles. */
#include "corpus_common.h"

#ifndef NI
#define NI 100
#endif
#ifndef NK
#define NK 72
#endif

void syr2k(double alpha, double beta, double C[NI][NI], double A[NI][NK], double B[NI][NK])
{
#pragma acc parallel loop copyin(A, B) copy(C)
    for (int i = 0; i < NI; i++) {
#pragma acc loop
        for (int j = 0; j < NI; j++) {
            double sum = 0.0;
            for (int k = 0; k < NK; k++)
                sum += A[j][k] * B[i][k] + B[j][k] * A[i][k];
            C[i][j] = alpha * sum + beta * C[i][j];
        }
    }
}

int main(void)
{
    static double A[NI][NK], B[NI][NK], C[NI][NI];
    for (int i = 0; i < NI; i++) {
        for (int k = 0; k < NK; k++) {
            A[i][k] = (double)((i * k + 1) % NI) / NI;
            B[i][k] = (double)((i * k + 2) % NK) / NK;
        }
        for (int j = 0; j < NI; j++)
            C[i][j] = (double)((i * j + 3) % NI) / NI;
    }
    syr2k(1.5, 1.2, C, A, B);
    dump_double("C", &C[0][0], (long)NI * NI);
    return 0;
}
