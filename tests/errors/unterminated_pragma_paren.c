/* unterminated_pragma_paren.c - the share pragma's `(` is never closed
 * before the end of the pragma line. */
#define N 256
void smooth(float B[N][N], float A[N][N])
{
    int i, j;
#pragma acc share(A[TB_Y+2][TB_X+2]
#pragma acc kernels loop independent copyin(A[0:N][0:N]) copyout(B[0:N][0:N])
    for (i = 1; i < N - 1; i++) {
#pragma acc loop independent
        for (j = 1; j < N - 1; j++)
            B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    }
}
