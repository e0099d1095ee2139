/* plain_stencil.c - a 5-point Jacobi sweep written as plain OpenACC (no share
 * pragma): the engine induces in[TB_Y + 2][TB_X + 2], out[TB_Y][TB_X] and
 * its profit model decides whether the halo tile pays. Rows and columns
 * (70 x 99) leave partial blocks at the edges; the border is copied. */
#include "corpus_common.h"

#ifndef N
#define N 70
#endif
#ifndef M
#define M 99
#endif

void sweep(float out[N][M], const float in[N][M])
{
#pragma acc parallel loop copyin(in) copy(out)
    for (int i = 1; i < N - 1; i++) {
#pragma acc loop
        for (int j = 1; j < M - 1; j++)
            out[i][j] = 0.2f * (in[i][j] + in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
    }
}

int main(void)
{
    static float a[N][M], b[N][M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            a[i][j] = INIT2(i, j);
            b[i][j] = 0.0f;
        }
    for (int t = 0; t < 3; t++) {
        sweep(b, a);
        sweep(a, b);
    }
    dump_float("a", &a[0][0], (long)N * M);
    dump_float("b", &b[0][0], (long)N * M);
    return 0;
}
