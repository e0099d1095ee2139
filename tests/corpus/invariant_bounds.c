/* invariant_bounds.c - loop bounds that are not affine but do not change in the region, as NPB
 * writes them (`k <= grid_points[2] - 1`, `n / 2`): the host computes them before the region
 * and the loops still go to the grid. A bound read from an array the region writes stays in
 * the kernel (that loop runs in each work-item). */
#include "corpus_common.h"

#ifndef NX
#define NX 37
#endif
#ifndef NY
#define NY 29
#endif

int grid_points[3];
double u[NX][NY], rhs[NX][NY];

void compute_rhs(int n)
{
    int i, j;
#pragma acc parallel loop copyin(u, grid_points) copy(rhs)
    for (i = 1; i <= grid_points[0] - 2; i++) {
#pragma acc loop
        for (j = 1; j <= grid_points[1] - 2; j++)
            rhs[i][j] = u[i - 1][j] + u[i + 1][j] - 2.0 * u[i][j] + rhs[i][j] * 0.5;
    }
#pragma acc parallel loop copy(rhs)
    for (i = 0; i < n / 2; i++)
        rhs[i][0] = rhs[i][0] + (double)(i % 3);
}

/* `len[i]` is written in the region: the bound of `j` is not invariant. */
void prefix_lengths(int len[NX], double out[NX][NY])
{
#pragma acc parallel loop copy(len[0:NX], out[0:NX][0:NY])
    for (int i = 0; i < NX; i++) {
        len[i] = len[i] % NY;
        for (int j = 0; j < len[i]; j++)
            out[i][j] = (double)(i + j);
    }
}

/* A pointer without a data clause: the host sizes its buffer from the subscripts, whose range
 * ends at a region invariant (`n / 2`): the host spells it as the expression. */
void halve(double *p, int n)
{
#pragma acc parallel loop
    for (int i = 0; i < n / 2; i++)
        p[i] = p[i] * 0.5 + 1.0;
}

int main(void)
{
    int len[NX];
    static double out[NX][NY];
    grid_points[0] = NX;
    grid_points[1] = NY - 3;
    grid_points[2] = 1;
    for (int i = 0; i < NX; i++) {
        len[i] = i * 7 + 3;
        for (int j = 0; j < NY; j++) {
            u[i][j] = (double)((i * 5 + j * 3) % 11) / 11.0;
            rhs[i][j] = (double)(i - j);
            out[i][j] = -1.0;
        }
    }
    compute_rhs(NX);
    prefix_lengths(len, out);
    halve(&out[1][0], NY + 5);
    dump_double("rhs", &rhs[0][0], (long)NX * NY);
    dump_double("out", &out[0][0], (long)NX * NY);
    dump_int("len", len, NX);
    return 0;
}
