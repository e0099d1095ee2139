/* unknown_clause.c - `fancy(3)` is not an OpenACC clause: accshare should
 * warn and ignore it (not an error); the rest is a complete valid program. */
#include <stdio.h>

#define N 100

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

void scale(int n, float *x, float a)
{
#pragma acc parallel loop fancy(3) copy(x[0:n])
    for (int i = 0; i < n; i++)
        x[i] = a * x[i];
}

int main(void)
{
    float x[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 17) / 17.0f;
    scale(N, x, 3.0f);
    dump_float("x", x, N);
    return 0;
}
