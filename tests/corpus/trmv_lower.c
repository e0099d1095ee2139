/* trmv_lower.c - lower-triangular matrix-vector product: one thread per
 * row, sequential inner loop with a bound depending on the row (j <= i). */
#include "corpus_common.h"

#ifndef N
#define N 257
#endif

void trmv(float y[N], float L[N][N], float x[N])
{
    int i, j;
#pragma acc kernels loop independent copyin(L[0:N][0:N], x[0:N]) copyout(y[0:N])
    for (i = 0; i < N; i++) {
        float s = 0.0f;
        for (j = 0; j <= i; j++)
            s += L[i][j] * x[j];
        y[i] = s;
    }
}

int main(void)
{
    static float L[N][N], x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
        for (int j = 0; j < N; j++)
            L[i][j] = j <= i ? INIT2(i, j) : 99.0f;   /* upper part must not be read */
    }
    trmv(y, L, x);
    dump_float("y", y, N);
    return 0;
}
