/* The share pragma asks for tiles of A and B, but the function reads `s` after the region: its
 * final value is stored by the baseline kernel, so the kernel is not staged (a warning says
 * why; the program still computes what its sequential version computes). */
#define N 64
float A[N][N], B[N][N], C[N][N];

float gemm_last(void)
{
    int i, j, k;
    float s = 0.0f;
#pragma acc share(B[*][TB_X], A[TB_Y][*]:coalesce)
#pragma acc kernels loop independent copyin(A, B) copyout(C)
    for (i = 0; i < N; i++) {
#pragma acc loop independent
        for (j = 0; j < N; j++) {
            s = 0.0f;
            for (k = 0; k < N; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    }
    return s;
}
