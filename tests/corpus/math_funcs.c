/* math_funcs.c - libm calls in a kernel body (sqrtf, expf, fabsf, fminf)
 * mixed with if/else on a 1-D pointer array. */
#include <math.h>
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

void activate(int n, const float *x, float *y, float cap)
{
#pragma acc parallel loop copyin(x[0:n]) copyout(y[0:n])
    for (int i = 0; i < n; i++) {
        float v = x[i];
        float r;
        if (v > 0.0f) {
            r = sqrtf(v) + 0.5f * v;
        } else if (v > -1.0f) {
            r = expf(v) - 1.0f;
        } else {
            r = -fabsf(v + 1.0f) * 0.25f - 0.63212056f;
        }
        y[i] = fminf(r, cap);
    }
}

int main(void)
{
    float *x = xmalloc(sizeof(float) * N);
    float *y = xmalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        x[i] = (float)((i * 7) % 101 - 50) / 10.0f;
    activate(N, x, y, 3.0f);
    dump_float("y", y, N);
    free(x);
    free(y);
    return 0;
}
