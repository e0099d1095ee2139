/* host_expressions.c - the expressions of clauses the host evaluates, in the forms C programs
 * write them: an `if` clause comparing a pointer with NULL (a cast to `void *`) and calling a
 * library function on a string, lengths with `sizeof` of a type and of an array, a hex
 * literal, a member of a struct, a cast to `int`, a conditional; and a region whose loop bound
 * is an invariant the host computes. The generated host code must spell each as the program
 * means it. */
#include "corpus_common.h"
#include <string.h>

#define N 300

struct dims {
    int n;
    int m;
};

int main(void)
{
    float *a = xmalloc(N * sizeof(float));
    float b[N];
    float *c = xmalloc(N * sizeof(float));
    struct dims d = {N, 0x40};
    long big = 0x12c;
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 17) * 0.5f;
        b[i] = (float)(i % 5);
        c[i] = 0.0f;
    }
    int n = (int)(sizeof(b) / sizeof(float));

#pragma acc parallel loop if(a != NULL && strlen("gpu") == 3) copyin(a[0:sizeof(b) / sizeof(b[0])], b[0:(int)big]) copy(c[0:d.n > 0 ? d.n : N])
    for (int i = 0; i < n; i++)
        c[i] = a[i] + b[i];

#pragma acc parallel loop copyin(a[0:d.n]) copy(c[0:0x12c])
    for (int i = 0; i < (int)b[4] * 16; i++)
        c[i] = c[i] * 2.0f + a[i];

    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += c[i] * (double)(i % 7 + 1);
    printf("sum %.3f\n", sum);
    printf("c[0] %.2f c[63] %.2f c[64] %.2f c[299] %.2f\n", c[0], c[63], c[64], c[299]);
    free(a);
    free(c);
    return 0;
}
