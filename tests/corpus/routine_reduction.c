/* routine_reduction.c - `acc routine` functions whose loops carry an orphaned
 * `loop … reduction(+:sum)` over a local of the routine: inlined into the
 * kernels, the clause names the renamed local. A `seq` routine and a `vector`
 * one, called from a gang loop. */
#include "corpus_common.h"

#ifndef N
#define N 96
#endif
#define M 50

#pragma acc routine seq
static float row_sum(const float *a, int x, int m)
{
    float sum = 0.0f;
#pragma acc loop seq reduction(+:sum)
    for (int y = 0; y < m; ++y)
        sum += a[x * m + y];
    return sum;
}

#pragma acc routine vector
static float row_max(const float *a, int x, int m)
{
    float best = a[x * m];
#pragma acc loop vector reduction(max:best)
    for (int y = 1; y < m; ++y)
        best = best > a[x * m + y] ? best : a[x * m + y];
    return best;
}

int main(void)
{
    float *a = xmalloc(sizeof(float) * N * M);
    float *s = xmalloc(sizeof(float) * N);
    float *mx = xmalloc(sizeof(float) * N);
    for (int i = 0; i < N * M; i++)
        a[i] = (float)((i * 11) % 37) * 0.25f;
#pragma acc parallel loop gang copyin(a[0:N*M]) copyout(s[0:N], mx[0:N])
    for (int x = 0; x < N; x++) {
        s[x] = row_sum(a, x, M);
        mx[x] = row_max(a, x, M);
    }
    dump_float("s", s, N);
    dump_float("mx", mx, N);
    free(a);
    free(s);
    free(mx);
    return 0;
}
