/* Column sums under `parallel loop` on the row loop (data-mining style): the row loop carries
 * the dependence, the column loop none; accshare interchanges them (a note) and warns about the
 * row loop, which runs in order in each work-item. A diagonal dependence is not interchanged. */
#define N 64
#define M 32
float data[N][M], mean[M], u[N][M];

void column_means(void)
{
#pragma acc parallel loop copyin(data) copy(mean)
    for (int i = 0; i < N; i++) {
#pragma acc loop
        for (int j = 0; j < M; j++)
            mean[j] += data[i][j];
    }
#pragma acc parallel loop copy(u)
    for (int i = 1; i < N; i++) {
#pragma acc loop
        for (int j = 0; j < M - 1; j++)
            u[i][j] = u[i - 1][j + 1];
    }
}
