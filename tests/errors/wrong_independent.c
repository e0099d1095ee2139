/* wrong_independent.c - the inner j loop is declared independent but every
 * iteration accumulates into the same x1[i]: a loop-carried dependence. */
void mv_acc(int n, float A[n][n], float x1[n], float y1[n])
{
    int i, j;
#pragma acc kernels loop independent copyin(A[0:n][0:n], y1[0:n]) copy(x1[0:n])
    for (i = 0; i < n; i++) {
#pragma acc loop independent
        for (j = 0; j < n; j++) {
            x1[i] += A[i][j] * y1[j];
        }
    }
}
