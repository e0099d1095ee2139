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
