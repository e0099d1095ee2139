/* gemm.c - C = alpha * A * B + beta * C (float, PolyBench-style).
 * Threads run over (i, j) with j on x; the k loop is sequential and
 * accumulates in a register.  B[k][j] is read along a row by a warp
 * (coalesced) and A[i][k] is one value per row of the block, so the hint
 * shares a TB_X-wide band of B and a TB_Y-high band of A. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NI
#define NI 256
#endif
#ifndef NJ
#define NJ 256
#endif
#ifndef NK
#define NK 256
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

void gemm(float alpha, float beta, float C[NI][NJ], float A[NI][NK], float B[NK][NJ])
{
    int i, j, k;
#pragma acc share(B[*][TB_X], A[TB_Y][*]:coalesce)
#pragma acc kernels loop independent copyin(A[0:NI][0:NK], B[0:NK][0:NJ]) copy(C[0:NI][0:NJ])
    for (i = 0; i < NI; i++) {
#pragma acc loop independent
        for (j = 0; j < NJ; j++) {
            float sum = 0.0f;
            for (k = 0; k < NK; k++)
                sum += A[i][k] * B[k][j];
            C[i][j] = alpha * sum + beta * C[i][j];
        }
    }
}

int main(void)
{
    float (*A)[NK] = malloc(sizeof(float[NI][NK]));
    float (*B)[NJ] = malloc(sizeof(float[NK][NJ]));
    float (*C)[NJ] = malloc(sizeof(float[NI][NJ]));
    float alpha = 1.5f, beta = 1.2f;
    int i, j;

    if (!A || !B || !C)
        return 1;
    for (i = 0; i < NI; i++)
        for (j = 0; j < NK; j++)
            A[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f;
    for (i = 0; i < NK; i++)
        for (j = 0; j < NJ; j++)
            B[i][j] = (float)((i * 5 + j * 11) % 13) / 13.0f;
    for (i = 0; i < NI; i++)
        for (j = 0; j < NJ; j++)
            C[i][j] = (float)((i + 2 * j) % 7) / 7.0f;

    gemm(alpha, beta, C, A, B);

    dump_float("C", &C[0][0], (long)NI * NJ);
    free(A);
    free(B);
    free(C);
    return 0;
}
