/* `acc loop` without `independent` in a `parallel` construct on loops that carry dependences
 * (a row sum, a recurrence): warnings, and the loops run sequentially (PolyBench's mvt/trisolv
 * style). */
#define N 64
float A[N][N], x[N], y[N], b[N];

void rowsum_and_recurrence(void)
{
#pragma acc parallel loop copyin(A, y) copy(x)
    for (int i = 0; i < N; i++) {
#pragma acc loop
        for (int j = 0; j < N; j++)
            x[i] = x[i] + A[i][j] * y[j];
    }
#pragma acc parallel copy(b) copyin(A)
    {
        b[0] = 1.0f;
#pragma acc loop
        for (int i = 1; i < N; i++)
            b[i] = b[i - 1] * 0.5f + A[i][0];
    }
}
