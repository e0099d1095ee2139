/* sum_axis3d.c - 3-D double input reduced along its last axis into a 2-D
 * output: collapse(2) over (i, j) with an inner sequential k loop. */
#include "corpus_common.h"

#ifndef NI
#define NI 37
#endif
#ifndef NJ
#define NJ 61
#endif
#ifndef NK
#define NK 17
#endif

void sum_last_axis(double S[NI][NJ], double V[NI][NJ][NK])
{
#pragma acc parallel loop collapse(2) copyin(V[0:NI][0:NJ][0:NK]) copyout(S[0:NI][0:NJ])
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            double acc = 0.0;
            for (int k = 0; k < NK; k++)
                acc += V[i][j][k] * (double)(k + 1);
            S[i][j] = acc;
        }
}

int main(void)
{
    double (*V)[NJ][NK] = xmalloc(sizeof(double[NI][NJ][NK]));
    double (*S)[NJ] = xmalloc(sizeof(double[NI][NJ]));
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            for (int k = 0; k < NK; k++)
                V[i][j][k] = (double)((i * 7 + j * 3 + k) % 17) / 17.0;
    sum_last_axis(S, V);
    dump_double("S", &S[0][0], (long)NI * NJ);
    free(V);
    free(S);
    return 0;
}
