/* bank_transpose_pairs.c - a transpose that averages neighbouring rows: `in[j][i]` and
 * `in[j + 1][i]` read by consecutive work-items down a column. The tile is one row taller than
 * the block along x, so stored transposed its reads and its copy's stores are conflict-free
 * without the padding a row-major tile would need (bank-conflict technique: transpose). */
#include "corpus_common.h"

#ifndef N
#define N 200
#endif
#ifndef M
#define M 136
#endif

void pair_transpose(float out[M][N], float in[N + 1][M])
{
#pragma acc share(in[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent copyin(in[0:N+1][0:M]) copyout(out[0:M][0:N])
    for (int i = 0; i < M; i++) {
#pragma acc loop independent
        for (int j = 0; j < N; j++)
            out[i][j] = 0.5f * (in[j][i] + in[j + 1][i]);
    }
}

int main(void)
{
    static float in[N + 1][M], out[M][N];
    for (int i = 0; i < N + 1; i++)
        for (int j = 0; j < M; j++)
            in[i][j] = (float)((i * 37 + j * 11) % 101) - 50.0f;
    pair_transpose(out, in);
    dump_float("out", &out[0][0], (long)M * N);
    return 0;
}
