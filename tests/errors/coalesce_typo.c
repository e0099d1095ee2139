/* coalesce_typo.c - misspelt share modifier (`colaesce`). */
#define N 256
void transpose(float out[N][N], float in[N][N])
{
    int i, j;
#pragma acc share(in[TB_X][TB_Y]:colaesce)
#pragma acc kernels loop independent copyin(in[0:N][0:N]) copyout(out[0:N][0:N])
    for (i = 0; i < N; i++) {
#pragma acc loop independent
        for (j = 0; j < N; j++)
            out[i][j] = in[j][i];
    }
}
