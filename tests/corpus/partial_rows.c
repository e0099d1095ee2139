/* partial_rows.c - data clauses naming part of an inner dimension (`a[0:N][0:K]` of
 * `a[N][M]`): the elements are not contiguous, so the buffers hold whole rows; a `copyout` of
 * part of the rows must leave the host's other elements as they were. */
#include "corpus_common.h"

#ifndef N
#define N 21
#endif
#ifndef M
#define M 19
#endif
#define K (M / 2)

float a[N][M], b[N][M], c[N][M];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            a[i][j] = (float)(i * 100 + j);
            b[i][j] = -1.0f;
            c[i][j] = (float)(j - i);
        }
#pragma acc parallel loop copyin(a[0:N][0:K]) copyout(b[0:N][0:K]) copy(c[0:N][0:K])
    for (int i = 0; i < N; i++)
        for (int j = 0; j < K; j++) {
            b[i][j] = a[i][j] * 2.0f;
            c[i][j] = c[i][j] + a[i][j];
        }
    dump_float("b", &b[0][0], (long)N * M);
    dump_float("c", &c[0][0], (long)N * M);
    return 0;
}
