/* switch_chains.c - a `switch` in a kernel (cases that break, fall through,
 * share a body, `default` between cases) and chains of assignments used as
 * statements (`s += c[i] = a[i] + b[i];`, `x = y = v;`): the kernels run them
 * as `if`/`else if` chains and one assignment per statement. */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

int main(void)
{
    int *k = xmalloc(sizeof(int) * N);
    float *b = xmalloc(sizeof(float) * N);
    float *c = xmalloc(sizeof(float) * N);
    float *d = xmalloc(sizeof(float) * N);
    float *e = xmalloc(sizeof(float) * N);
    float sums[8];
    for (int i = 0; i < N; i++) {
        k[i] = (i * 7) % 6;
        b[i] = (float)(i % 9) + 1.0f;
        c[i] = 0.0f;
        d[i] = 0.0f;
        e[i] = 0.0f;
    }
#pragma acc parallel loop copyin(k[0:N]) copy(b[0:N], c[0:N])
    for (int i = 0; i < N; i++) {
        switch (k[i]) {
        case 0:
            c[i] = b[i] * b[i];
            break;
        case 1:
        case 4:
            c[i] = b[i] + 1.0f;
            break;
        default:
            c[i] = -1.0f;
            break;
        case 2:
            b[i] = b[i] / 2.0f;
        case 3:
            c[i] = c[i] + b[i];
            if (c[i] > 4.0f)
                c[i] = 4.0f;
        }
    }
#pragma acc parallel loop gang copyin(b[0:N], c[0:N]) copyout(d[0:N], e[0:N], sums[0:8])
    for (int g = 0; g < 8; g++) {
        float s = 0.0f;
#pragma acc loop reduction(+:s)
        for (int i = g; i < N; i += 8)
            s += d[i] = b[i] + c[i];
        sums[g] = s;
#pragma acc loop
        for (int i = g; i < N; i += 8)
            e[i] = d[i] = d[i] * 0.5f;
    }
    dump_float("b", b, N);
    dump_float("c", c, N);
    dump_float("d", d, N);
    dump_float("e", e, N);
    dump_float("sums", sums, 8);
    free(k);
    free(b);
    free(c);
    free(d);
    free(e);
    return 0;
}
