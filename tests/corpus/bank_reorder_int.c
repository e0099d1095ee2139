/* bank_reorder_int.c - an integer matrix-vector product (row hashes of a small-integer
 * matrix), in the style of the PolyBench/ACC `mvt` kernels: each work-item sums one row of the
 * staged tile of `A` while consecutive work-items walk down a column, so as laid out the lanes
 * of a warp hit one bank. The reduction is over integers, exact in any order: each work-item
 * starts its strip of the row at its own column (access reorder), conflict-free without the
 * padding a row-major tile would need. The checksum is printed with the arrays. */
#include "corpus_common.h"

#ifndef N
#define N 300
#endif
#ifndef M
#define M 200
#endif

#define A_AT(i, j) (((i) * 7 + (j) * 13) % 23 - 11)

void mv_int(int y[N], int A[N][M], int x[M])
{
#pragma acc data copyin(A[0:N][0:M], x[0:M]) copyout(y[0:N])
    {
#pragma acc kernels loop independent present(A, x, y)
        for (int i = 0; i < N; i++) {
            int s = 0;
            for (int j = 0; j < M; j++)
                s += A[i][j] * x[j];
            y[i] = s;
        }
    }
}

int main(void)
{
    static int A[N][M], x[M], y[N];
    long checksum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = A_AT(i, j);
    for (int j = 0; j < M; j++)
        x[j] = j % 9 - 4;
    mv_int(y, A, x);
    for (int i = 0; i < N; i++)
        checksum += (long)(i + 1) * y[i];
    printf("checksum %ld\n", checksum);
    dump_int("y", y, N);
    return 0;
}
