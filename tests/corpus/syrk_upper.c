/* syrk_upper.c - PolyBench SYRK on the upper triangle: the inner parallel
 * loop starts at the outer index (`for (j = i; j < N; j++)`). */
#include "corpus_common.h"

#ifndef N
#define N 61
#endif
#ifndef M
#define M 37
#endif

void syrk(float alpha, float beta, float C[N][N], float A[N][M])
{
    int i, j, k;
#pragma acc parallel loop copyin(A[0:N][0:M]) copy(C[0:N][0:N])
    for (i = 0; i < N; i++) {
#pragma acc loop
        for (j = i; j < N; j++) {
            float acc = 0.0f;
            for (k = 0; k < M; k++)
                acc += A[i][k] * A[j][k];
            C[i][j] = beta * C[i][j] + alpha * acc;
        }
    }
}

int main(void)
{
    static float A[N][M], C[N][N];
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = INIT2(i, j);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            C[i][j] = (float)((i * j) % 5) / 5.0f;
    syrk(1.5f, 0.5f, C, A);
    dump_float("C", &C[0][0], (long)N * N);
    return 0;
}
