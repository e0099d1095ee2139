/* share_row_tile.c - a `share(A[TB_Y][*])` hint on a small matrix product (PolyBench gemm at
 * MINI size): the engine picks one row per block and a block far wider than the 24 columns,
 * so most work-items are outside the edge guard while the strip loop's barriers run. PoCL
 * miscompiled the kernel when the accumulator was initialized under that guard (work-items
 * outside it wrote past `C`); it is now initialized on its declaration. */
#include "corpus_common.h"

#ifndef NI
#define NI 20
#endif
#ifndef NK
#define NK 28
#endif
#ifndef NJ
#define NJ 24
#endif

void gemm(int ni, int nj, int nk, float alpha, float beta, float C[NI][NJ], float A[NI][NK],
          float B[NK][NJ])
{
    int i, j, k;
#pragma acc share(A[TB_Y][*])
#pragma acc parallel loop collapse(2) copyin(A[0:NI][0:NK], B[0:NK][0:NJ]) copy(C[0:NI][0:NJ])
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            float acc = 0.0f;
            for (k = 0; k < nk; k++)
                acc += A[i][k] * B[k][j];
            C[i][j] = alpha * acc + beta * C[i][j];
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
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            C[i][j] = (float)((i + 2 * j) % 7) / 7.0f;
    gemm(NI, NJ, NK, 1.5f, 1.2f, C, A, B);
    dump_float("C", &C[0][0], (long)NI * NJ);
    return 0;
}
