/* gemm_share.c - C = alpha * A * B + beta * C, float, NI x NK times NK x NJ
 * (default 1024 each), PolyBench's gemm with the `share` pragma of accshare
 * (README): tiles of B and A staged in local memory. gemm.c is the same
 * without it. */
#include "five.h"

#ifndef NI
#define NI 1024
#endif
#ifndef NJ
#define NJ 1024
#endif
#ifndef NK
#define NK 1024
#endif

static void init(float *alpha, float *beta, float C[NI][NJ], float A[NI][NK], float B[NK][NJ])
{
    int i, j, k;
    *alpha = 1.5f;
    *beta = 1.2f;
    for (i = 0; i < NI; i++)
        for (j = 0; j < NJ; j++)
            C[i][j] = (float)((i * j + 1) % NI) / NI;
    for (i = 0; i < NI; i++)
        for (k = 0; k < NK; k++)
            A[i][k] = (float)(i * (k + 1) % NK) / NK;
    for (k = 0; k < NK; k++)
        for (j = 0; j < NJ; j++)
            B[k][j] = (float)(k * (j + 2) % NJ) / NJ;
}

static double kernel_gemm(float alpha, float beta, float C[NI][NJ], float A[NI][NK], float B[NK][NJ])
{
    int i, j, k;
    double t0 = five_now();
#pragma scop
#pragma acc data copyin(A[0:NI][0:NK], B[0:NK][0:NJ]) copy(C[0:NI][0:NJ])
    {
#pragma acc share(B[*][TB_X], A[TB_Y][*]:coalesce)
#pragma acc parallel loop
        for (i = 0; i < NI; i++) {
#pragma acc loop
            for (j = 0; j < NJ; j++) {
                float sum = 0.0f;
                for (k = 0; k < NK; k++)
                    sum += A[i][k] * B[k][j];
                C[i][j] = alpha * sum + beta * C[i][j];
            }
        }
    }
#pragma endscop
    return five_now() - t0;
}

int main(void)
{
    float (*A)[NK] = five_alloc(sizeof(float[NI][NK]));
    float (*B)[NJ] = five_alloc(sizeof(float[NK][NJ]));
    float (*C)[NJ] = five_alloc(sizeof(float[NI][NJ]));
    float alpha, beta;
    int r;

    for (r = 0; r < REPS; r++) {
        init(&alpha, &beta, C, A, B);
        five_time(kernel_gemm(alpha, beta, C, A, B));
    }
    five_checksum_float(&C[0][0], (long)NI * NJ);
    five_dump_float("C", &C[0][0], (long)NI * NJ);
    free(A);
    free(B);
    free(C);
    return 0;
}
