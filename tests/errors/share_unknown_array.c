/* share_unknown_array.c - share names `Q`, which is not an array of this
 * function (the arrays are A, x and y). */
#define N 512
void mv(float y[N], float A[N][N], float x[N])
{
    int i, j;
#pragma acc share(Q[TB_X])
#pragma acc kernels loop independent copyin(A[0:N][0:N], x[0:N]) copyout(y[0:N])
    for (i = 0; i < N; i++) {
        float s = 0.0f;
        for (j = 0; j < N; j++)
            s += A[i][j] * x[j];
        y[i] = s;
    }
}
