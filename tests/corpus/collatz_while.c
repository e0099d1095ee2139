/* collatz_while.c - data-dependent trip counts: a bounded `while` loop with
 * an if/else body inside a kernel over int data (threads diverge). */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif
#define MAX_STEPS 500

void collatz(int n, const int *start, int *steps, int *peak)
{
    int i;
#pragma acc kernels loop independent copyin(start[0:n]) copyout(steps[0:n], peak[0:n])
    for (i = 0; i < n; i++) {
        int v = start[i];
        int s = 0;
        int p = v;
        while (v != 1 && s < MAX_STEPS) {
            if (v % 2 == 0) {
                v = v / 2;
            } else {
                v = 3 * v + 1;
                if (v > p)
                    p = v;
            }
            s++;
        }
        steps[i] = s;
        peak[i] = p;
    }
}

int main(void)
{
    int *start = xmalloc(sizeof(int) * N);
    int *steps = xmalloc(sizeof(int) * N);
    int *peak = xmalloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        start[i] = 1 + (i * 37) % 9973;
    collatz(N, start, steps, peak);
    dump_int("steps", steps, N);
    dump_int("peak", peak, N);
    free(start);
    free(steps);
    free(peak);
    return 0;
}
