/* A 5-point stencil whose share pragma asks for a tile of `in` with its halo: on a GPU whose L1
 * caches global loads (the default h100) the model estimates the staged kernel slower than the
 * unstaged one, whose neighbour loads the L1 serves, and keeps the arrays in global memory; a
 * warning says so at the pragma (the program still computes what its sequential version
 * computes). */
#define N 1024
float in[N][N], out[N][N];

void smooth(void)
{
    int i, j;
#pragma acc share(in[TB_Y+2][TB_X+2])
#pragma acc kernels loop independent copyin(in) copyout(out)
    for (i = 1; i < N - 1; i++) {
#pragma acc loop independent
        for (j = 1; j < N - 1; j++)
            out[i][j] = 0.2f * (in[i][j] + in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
    }
}
