/* planted: host
 * from: tests/corpus/stencil3d_7pt.c
 * flags: 
 * change: a progress print of `A` inside the data region, without `update self` */
/* stencil3d_7pt.c - 3-D 7-point heat stencil: a 3-D loop nest with
 * collapse(3), host time loop, data region + present() and a copy-back
 * kernel; prime extents so no dimension is a multiple of a block size. */
#include "../corpus/corpus_common.h"

#ifndef NX
#define NX 37
#endif
#ifndef NY
#define NY 41
#endif
#ifndef NZ
#define NZ 43
#endif
#ifndef STEPS
#define STEPS 5
#endif

void heat3d(int steps, float A[NX][NY][NZ], float B[NX][NY][NZ])
{
#pragma acc data copy(A[0:NX][0:NY][0:NZ]) create(B[0:NX][0:NY][0:NZ])
    {
        for (int t = 0; t < steps; t++) {
#pragma acc parallel loop collapse(3) present(A, B)
            for (int i = 1; i < NX - 1; i++)
                for (int j = 1; j < NY - 1; j++)
                    for (int k = 1; k < NZ - 1; k++)
                        B[i][j][k] = 0.125f * (A[i + 1][j][k] - 2.0f * A[i][j][k] + A[i - 1][j][k])
                                   + 0.125f * (A[i][j + 1][k] - 2.0f * A[i][j][k] + A[i][j - 1][k])
                                   + 0.125f * (A[i][j][k + 1] - 2.0f * A[i][j][k] + A[i][j][k - 1])
                                   + A[i][j][k];
#pragma acc parallel loop collapse(3) present(A, B)
            for (int i = 1; i < NX - 1; i++)
                for (int j = 1; j < NY - 1; j++)
                    for (int k = 1; k < NZ - 1; k++)
                        A[i][j][k] = B[i][j][k];
            printf("%d %f\n", t, A[1][1][1]);
        }
    }
}

int main(void)
{
    float (*A)[NY][NZ] = xmalloc(sizeof(float[NX][NY][NZ]));
    float (*B)[NY][NZ] = xmalloc(sizeof(float[NX][NY][NZ]));
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            for (int k = 0; k < NZ; k++) {
                A[i][j][k] = (float)((i * 7 + j * 3 + k * 5) % 19) / 19.0f;
                B[i][j][k] = 0.0f;
            }
    heat3d(STEPS, A, B);
    dump_float("A", &A[0][0][0], (long)NX * NY * NZ);
    free(A);
    free(B);
    return 0;
}
