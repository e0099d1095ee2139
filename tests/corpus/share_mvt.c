/* share_mvt.c - PolyBench MVT: x1 += A y1 (row access, uncoalesced, hint
 * with :coalesce) and x2 += A^T y2 (column access, coalesced, vector hint)
 * as two kernels in one data region. */
#include "corpus_common.h"

#ifndef N
#define N 257
#endif

void mvt(float x1[N], float x2[N], float y1[N], float y2[N], float A[N][N])
{
    int i, j;
#pragma acc data copyin(A[0:N][0:N], y1[0:N], y2[0:N]) copy(x1[0:N], x2[0:N])
    {
#pragma acc share(y1[*], A[TB_X][*]:coalesce)
#pragma acc kernels loop independent
        for (i = 0; i < N; i++) {
            float s = x1[i];
            for (j = 0; j < N; j++)
                s += A[i][j] * y1[j];
            x1[i] = s;
        }
#pragma acc share(y2[*])
#pragma acc kernels loop independent
        for (i = 0; i < N; i++) {
            float s = x2[i];
            for (j = 0; j < N; j++)
                s += A[j][i] * y2[j];
            x2[i] = s;
        }
    }
}

int main(void)
{
    static float A[N][N], x1[N], x2[N], y1[N], y2[N];
    for (int i = 0; i < N; i++) {
        x1[i] = (float)(i % 5) / 5.0f;
        x2[i] = (float)((i + 1) % 7) / 7.0f;
        y1[i] = (float)((i * 3) % 11) / 11.0f;
        y2[i] = (float)((i * 7) % 13) / 13.0f;
        for (int j = 0; j < N; j++)
            A[i][j] = INIT2(i, j);
    }
    mvt(x1, x2, y1, y2, A);
    dump_float("x1", x1, N);
    dump_float("x2", x2, N);
    return 0;
}
