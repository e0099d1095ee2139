/* share_bad_expr.c - share extent uses TB_Q, which is neither TB_X/TB_Y, a
 * constant nor `*`. */
#define N 256
void rowscale(float B[N][N], float A[N][N], float s)
{
    int i, j;
#pragma acc share(A[TB_Q][*])
#pragma acc kernels loop independent copyin(A[0:N][0:N]) copyout(B[0:N][0:N])
    for (i = 0; i < N; i++) {
#pragma acc loop independent
        for (j = 0; j < N; j++)
            B[i][j] = s * A[i][j];
    }
}
