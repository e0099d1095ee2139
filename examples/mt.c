/* mt.c - matrix transpose B = A^T (float).
 * The j loop is the innermost parallel loop (mapped to threadIdx.x), so the
 * write out[i][j] is coalesced but the read in[j][i] walks a column.  The
 * share hint asks accshare to stage the TB_X x TB_Y tile of `in` touched by a
 * thread block through local/shared memory so that both sides coalesce. */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 512            /* rows of A */
#endif
#ifndef M
#define M 384            /* columns of A */
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

/* out = in^T ; in is N x M, out is M x N */
void transpose(float out[M][N], float in[N][M])
{
    int i, j;
#pragma acc share(in[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent copyin(in[0:N][0:M]) copyout(out[0:M][0:N])
    for (i = 0; i < M; i++) {
#pragma acc loop independent
        for (j = 0; j < N; j++) {
            out[i][j] = in[j][i];
        }
    }
}

int main(void)
{
    float (*A)[M] = malloc(sizeof(float[N][M]));
    float (*B)[N] = malloc(sizeof(float[M][N]));
    int i, j;

    if (!A || !B)
        return 1;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f + (float)i;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++)
            B[i][j] = 0.0f;

    transpose(B, A);

    dump_float("B", &B[0][0], (long)M * N);
    free(A);
    free(B);
    return 0;
}
