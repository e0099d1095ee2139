/* collapse_force.c - `collapse(force:n)` (OpenACC 3.3) over loops with code
 * between them: that code runs in each iteration of the innermost loop, so it
 * computes what the loop nest as written computes when it only sets values
 * each iteration recomputes (a scalar of the outer iteration, an element the
 * outer iteration owns). Three loops, code at two levels. */
#include "corpus_common.h"

#ifndef N
#define N 120
#endif
#define R 12

int main(void)
{
    float *a = xmalloc(sizeof(float) * R * N);
    float *w = xmalloc(sizeof(float) * R);
    float *c = xmalloc(sizeof(float) * R * N * 4);
    float *rowmax = xmalloc(sizeof(float) * R);
    for (int i = 0; i < R * N; i++)
        a[i] = (float)((i * 7) % 23) * 0.5f;
    for (int i = 0; i < R; i++)
        w[i] = (float)(i % 5) + 1.0f;
#pragma acc data copyin(a[0:R*N], w[0:R]) copyout(c[0:R*N*4], rowmax[0:R])
    {
#pragma acc parallel loop collapse(force:2)
        for (int x = 0; x < R; ++x) {
            float s = w[x] * 2.0f;
            float m = a[x * N] > s ? a[x * N] : s;
            for (int y = 0; y < N; ++y)
                c[(x * N + y) * 4] = s * a[x * N + y];
            rowmax[x] = m;
        }
#pragma acc parallel loop collapse(force:3)
        for (int x = 0; x < R; ++x) {
            float s = w[x] + 1.0f;
            for (int y = 0; y < N; ++y) {
                float t = a[x * N + y] * s;
                for (int k = 1; k < 4; ++k)
                    c[(x * N + y) * 4 + k] = t + (float)k;
            }
        }
    }
    dump_float("c", c, (long)R * N * 4);
    dump_float("rowmax", rowmax, R);
    free(a);
    free(w);
    free(c);
    free(rowmax);
    return 0;
}
