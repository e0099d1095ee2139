/* transpose_store_double.c - out = in^T written by column (the store is the
 * strided access: a scatter across work-items on a CPU device), double
 * precision, in the style of a Rodinia/SPEC-ACCEL helper kernel. Big enough
 * (75301 outputs) for a CPU device to tile the scatter. */
#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 293
#endif
#ifndef COLS
#define COLS 257
#endif

static void dump_double(const char *name, const double *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.17g\n", a[k]);
}

void transpose_d(double *restrict out, const double *restrict in)
{
#pragma acc kernels loop independent collapse(2) copyin(in[0:ROWS*COLS]) copyout(out[0:COLS*ROWS])
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            out[c * ROWS + r] = in[r * COLS + c];
}

int main(void)
{
    double *in = malloc(sizeof(double) * ROWS * COLS);
    double *out = malloc(sizeof(double) * ROWS * COLS);
    if (!in || !out)
        return 1;
    for (long k = 0; k < (long)ROWS * COLS; k++)
        in[k] = 0.5 * (double)(k % 97) - 3.0;
    transpose_d(out, in);
    dump_double("out", out, (long)ROWS * COLS);
    free(in);
    free(out);
    return 0;
}
