/* share_dims.c - share region with 3 extents for the 2-D array A. */
#define N 128
void blur(float B[N][N], float A[N][N])
{
    int i, j;
#pragma acc share(A[TB_Y][TB_X][4])
#pragma acc kernels loop independent copyin(A[0:N][0:N]) copyout(B[0:N][0:N])
    for (i = 1; i < N - 1; i++) {
#pragma acc loop independent
        for (j = 1; j < N - 1; j++)
            B[i][j] = 0.25f * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    }
}
