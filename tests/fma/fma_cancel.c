/* fma_cancel.c - `c = a * b - d` with `d` the rounded product: 0 in the sequential program
 * (no contraction), the product's rounding error (up to half a unit of 9e6, i.e. 0.5) where a
 * device fuses the multiply and the subtraction, as OpenCL allows. Not in tests/corpus: the
 * built program's output legitimately depends on the device's contraction. `accshare run`
 * must tell this apart from a wrong result (tests/tune.rs). */
#include <stdio.h>

#define N 4096

int main(void)
{
    static float a[N], b[N], d[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = 3000.0f + (float)i / 7.0f;
        b[i] = 2999.0f + (float)(i % 13) / 3.0f;
        d[i] = a[i] * b[i];
    }
#pragma acc parallel loop copyin(a, b, d) copyout(c)
    for (int i = 0; i < N; i++)
        c[i] = a[i] * b[i] - d[i];
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += c[i] < 0 ? -c[i] : c[i];
    printf("%g\n", s);
    return 0;
}
