/* transpose_add.c - C = alpha * A^T + beta * B in the style of PolyBench's
 * OpenACC kernels (macro sizes, a data region, `parallel loop collapse(2)`),
 * float, A read by column: the access a CPU device's compiler gathers. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NI
#define NI 45
#endif
#ifndef NJ
#define NJ 70
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

static void kernel_tadd(int ni, int nj, float alpha, float beta, float C[NI][NJ],
                        float A[NJ][NI], float B[NI][NJ])
{
#pragma acc data copyin(A[0:NJ][0:NI], B[0:NI][0:NJ]) copyout(C[0:NI][0:NJ])
    {
#pragma acc parallel loop collapse(2)
        for (int i = 0; i < ni; i++)
            for (int j = 0; j < nj; j++)
                C[i][j] = alpha * A[j][i] + beta * B[i][j];
    }
}

int main(void)
{
    float (*A)[NI] = malloc(sizeof(float[NJ][NI]));
    float (*B)[NJ] = malloc(sizeof(float[NI][NJ]));
    float (*C)[NJ] = malloc(sizeof(float[NI][NJ]));
    if (!A || !B || !C)
        return 1;
    for (int j = 0; j < NJ; j++)
        for (int i = 0; i < NI; i++)
            A[j][i] = (float)((i * 7 + j * 3) % 23) / 23.0f;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            B[i][j] = (float)((i + 2 * j) % 17) / 17.0f;
    kernel_tadd(NI, NJ, 1.5f, 0.25f, C, A, B);
    dump_float("C", &C[0][0], (long)NI * NJ);
    free(A);
    free(B);
    free(C);
    return 0;
}
