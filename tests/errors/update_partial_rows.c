/* `update` of part of an inner dimension: the elements are not contiguous, and whole rows
 * would overwrite the host's other elements. */
#define N 16
#define M 32
float a[N][M];

void f(void)
{
#pragma acc data copy(a)
    {
#pragma acc parallel loop
        for (int i = 0; i < N; i++)
            for (int j = 0; j < M; j++)
                a[i][j] += 1.0f;
#pragma acc update host(a[0:N][0:8])
    }
}

/* a start past 0 in an inner dimension takes part of every row too; in the first dimension it
 * is a section of whole rows, which is fine */
void g(void)
{
#pragma acc data copy(a[2:N - 2])
    {
#pragma acc update host(a[2:4][0:M])
#pragma acc update host(a[2:4][3:M - 3])
    }
}
