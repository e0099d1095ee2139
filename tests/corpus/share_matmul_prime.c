/* share_matmul_prime.c - share hint on a matrix product whose extents
 * (61 x 37 x 101) are primes: the shared tiles are partial at every edge. */
#include "corpus_common.h"

#ifndef NI
#define NI 61
#endif
#ifndef NK
#define NK 37
#endif
#ifndef NJ
#define NJ 101
#endif

void matmul(float C[NI][NJ], float A[NI][NK], float B[NK][NJ])
{
    int i, j, k;
#pragma acc share(A[TB_Y][*], B[*][TB_X])
#pragma acc kernels loop independent copyin(A[0:NI][0:NK], B[0:NK][0:NJ]) copyout(C[0:NI][0:NJ])
    for (i = 0; i < NI; i++) {
#pragma acc loop independent
        for (j = 0; j < NJ; j++) {
            float s = 0.0f;
            for (k = 0; k < NK; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    }
}

int main(void)
{
    static float A[NI][NK], B[NK][NJ], C[NI][NJ];
    for (int i = 0; i < NI; i++)
        for (int k = 0; k < NK; k++)
            A[i][k] = INIT2(i, k);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            B[k][j] = (float)((k * 5 + j * 11) % 13) / 13.0f - 0.5f;
    matmul(C, A, B);
    dump_float("C", &C[0][0], (long)NI * NJ);
    return 0;
}
