/* scalar_args_casts.c - scalar arguments of several types, casts between
 * int/float/unsigned, compound assignments (+= -= *= /= %= <<= |=) and
 * integer division/modulo inside a kernel. */
#include "corpus_common.h"

#ifndef N
#define N 61
#endif
#ifndef M
#define M 37
#endif

void mix(int n, int m, int A[n][m], float F[n][m], int shift, float scale, unsigned mask)
{
#pragma acc kernels loop independent copy(A[0:n][0:m]) copyout(F[0:n][0:m])
    for (int i = 0; i < n; i++) {
#pragma acc loop independent
        for (int j = 0; j < m; j++) {
            int a = A[i][j];
            unsigned u = (unsigned)a;
            float f = (float)a * scale;
            a += i;
            a -= j / 3;
            a *= 3;
            a %= 1000;
            u <<= shift;
            u |= mask;
            f /= 4.0f;
            f += (float)(int)(f * 8.0f) * 0.125f;
            A[i][j] = a + (int)(u & 0xFFu);
            F[i][j] = f - (float)(a / 7);
        }
    }
}

int main(void)
{
    static int A[N][M];
    static float F[N][M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = (i * 7 + j * 3) % 17 - 8;
    mix(N, M, A, F, 3, 0.75f, 0x5u);
    dump_int("A", &A[0][0], (long)N * M);
    dump_float("F", &F[0][0], (long)N * M);
    return 0;
}
