/* goto_in_kernel.c - a goto (early exit to a label) inside a kernel loop. */
#define N 256
void first_negative_sum(float out[N], float A[N][N])
{
    int i, j;
#pragma acc parallel loop copyin(A[0:N][0:N]) copyout(out[0:N])
    for (i = 0; i < N; i++) {
        float s = 0.0f;
        for (j = 0; j < N; j++) {
            if (A[i][j] < 0.0f)
                goto done;
            s += A[i][j];
        }
    done:
        out[i] = s;
    }
}
