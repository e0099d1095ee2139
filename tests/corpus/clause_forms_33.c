/* clause_forms_33.c - clause forms of OpenACC 2.7 to 3.3: `tile(*, *)` (the
 * implementation picks the tile), `num_gangs` with one count per dimension and
 * `gang(dim:k)` loops, `wait(devnum: d : queues: q)`, and a `reduction` of part
 * of an array (`c[0:M]`) or of one element (`e[2]`), whose updating loops run in
 * order. */
#include "corpus_common.h"

#ifndef N
#define N 300
#endif
#define M 10

int main(void)
{
    double *a = xmalloc(sizeof(double) * N);
    double *b = xmalloc(sizeof(double) * N);
    double *d2 = xmalloc(sizeof(double) * N * N);
    float *g = xmalloc(sizeof(float) * N * 8);
    double c[M];
    int e[4];
    double temp = 0.0;
    for (int i = 0; i < N; i++) {
        a[i] = (double)(i % 13) * 0.25;
        b[i] = (double)(i % 7) - 3.0;
    }
    for (int i = 0; i < N * 8; i++)
        g[i] = (float)(i % 11);
    for (int k = 0; k < M; k++)
        c[k] = 1.0;
    for (int k = 0; k < 4; k++)
        e[k] = k;
#pragma acc data copyin(a[0:N], b[0:N]) copyout(d2[0:N*N])
    {
#pragma acc kernels loop tile(*, *) reduction(+:temp)
        for (int x = 0; x < N; ++x) {
            for (int y = 0; y < N; ++y) {
                double t = 0;
                for (int z = 0; z < 4; ++z)
                    t += a[x] * b[y] + z;
                d2[x * N + y] = t;
                temp += t;
            }
        }
#pragma acc parallel loop tile(*) async(1)
        for (int x = 0; x < N; ++x)
            a[x] = a[x] + 1.0;
#pragma acc wait(devnum: 0 : queues: 1) async(2)
#pragma acc parallel loop reduction(+:c[0:M])
        for (int x = 0; x < N; ++x)
            for (int y = 0; y < M; ++y)
                c[y] += a[x] * (y + 1);
    }
#pragma acc parallel loop reduction(+:e[2]) copy(e[0:4]) copyin(b[0:N])
    for (int x = 0; x < N; ++x)
        e[2] += b[x] > 0.0 ? 1 : 0;
#pragma acc parallel num_gangs(8, 4) copy(g[0:N*8])
#pragma acc loop gang(dim:2)
    for (int i = 0; i < 8; i++) {
#pragma acc loop gang(dim:1)
        for (int j = 0; j < N; j++)
            g[i * N + j] = g[i * N + j] * 2.0f + (float)i;
    }
    dump_double("d2", d2, (long)N * N);
    dump_double("c", c, M);
    dump_double("temp", &temp, 1);
    dump_int("e", e, 4);
    dump_float("g", g, (long)N * 8);
    free(a);
    free(b);
    free(d2);
    free(g);
    return 0;
}
