/* transpose.c - out = in^T, float, N x N (default 4096).
 * Plain OpenACC: the inner parallel loop j writes out[i][j] (contiguous) and
 * reads in[j][i] (a column walk). */
#include "five.h"

#ifndef N
#define N 4096
#endif

static void init(float in[N][N], float out[N][N])
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            in[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f + (float)(i % 64);
            out[i][j] = 0.0f;
        }
}

static double kernel_transpose(float out[N][N], float in[N][N])
{
    int i, j;
    double t0 = five_now();
#pragma scop
#pragma acc data copyin(in[0:N][0:N]) copyout(out[0:N][0:N])
    {
#pragma acc parallel loop
        for (i = 0; i < N; i++) {
#pragma acc loop
            for (j = 0; j < N; j++)
                out[i][j] = in[j][i];
        }
    }
#pragma endscop
    return five_now() - t0;
}

int main(void)
{
    float (*in)[N] = five_alloc(sizeof(float[N][N]));
    float (*out)[N] = five_alloc(sizeof(float[N][N]));
    int r;

    for (r = 0; r < REPS; r++) {
        init(in, out);
        five_time(kernel_transpose(out, in));
    }
    five_checksum_float(&out[0][0], (long)N * N);
    five_dump_float("out", &out[0][0], (long)N * N);
    free(in);
    free(out);
    return 0;
}
