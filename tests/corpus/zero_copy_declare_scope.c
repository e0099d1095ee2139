/* zero_copy_declare_scope.c - `declare` in a function: its data live from the directive to the
 * end of the block (the function's body, or a loop body: once per iteration), as a data
 * construct there; compute regions inside use them as present, a callee's `present` finds
 * them, `copy`/`copyout` data come back when the block ends, `create` data (a scalar among
 * them) never reach the host. The sequential build undoes what OpenACC's copies hide (under
 * `#ifndef _OPENACC`), so both builds print the same. Run with and without
 * ACCSHARE_NO_ZERO_COPY=1 by tests/exec.rs. */
#include "corpus_common.h"

#ifndef N
#define N 300
#endif

/* Present in the caller's `declare`. */
static void scale(int n, float *p, float by)
{
#pragma acc parallel loop present(p[0:n])
    for (int i = 0; i < n; i++)
        p[i] = p[i] * by;
}

/* `copy` and `copyin` for the whole body; a second `declare` nests inside the first. */
static void axpy_twice(int n, const float *x, float *y, float *scratch)
{
#pragma acc declare copyin(x[0:n]) copy(y[0:n])
    float a = 0.5f;
#pragma acc parallel loop present(x[0:n], y[0:n])
    for (int i = 0; i < n; i++)
        y[i] = y[i] + a * x[i];
    scale(n, y, 2.0f);
#pragma acc declare create(scratch[0:n])
#pragma acc parallel loop present(x[0:n], scratch[0:n])
    for (int i = 0; i < n; i++)
        scratch[i] = x[i] * 3.0f;
#pragma acc parallel loop present(y[0:n], scratch[0:n])
    for (int i = 0; i < n; i++)
        y[i] = y[i] - scratch[i];
}

/* A `create` scalar: a value only the device holds, between two compute regions. */
static int device_only(int n, const int *v)
{
    int result = 0;
    {
        int t = -7;
#pragma acc declare create(t) copyin(v[0:n])
#pragma acc serial
        {
            t = v[0] + v[n - 1];
        }
#pragma acc serial copy(result)
        {
            result = t * 2;
        }
#ifndef _OPENACC
        t = -7;
#endif
        if (t != -7)
            result = -1;
    }
    return result;
}

int main(void)
{
    float *x = xmalloc(N * sizeof(float));
    float *y = xmalloc(N * sizeof(float));
    float *scratch = xmalloc(N * sizeof(float));
    int *v = xmalloc(N * sizeof(int));
    int per_step[4];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 11);
        y[i] = 1.0f;
        scratch[i] = -1.0f;
        v[i] = i * 3 - 100;
    }
    axpy_twice(N, x, y, scratch);
    /* a block's `declare` in a loop body: enters and leaves once per iteration */
    for (int s = 0; s < 4; s++) {
        {
#pragma acc declare copy(y[0:N])
            scale(N, y, 0.5f);
        }
        per_step[s] = (int)y[7];
    }
#ifndef _OPENACC
    for (int i = 0; i < N; i++)
        scratch[i] = -1.0f;
#endif
    int r = device_only(N, v);
    dump_float("y", y, N);
    dump_float("scratch", scratch, N);
    dump_int("per_step", per_step, 4);
    dump_int("r", &r, 1);
    free(x);
    free(y);
    free(scratch);
    free(v);
    return 0;
}
