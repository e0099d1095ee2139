/* atomic_narrow_tail.c - `char` and `short` atomics (a compare-and-swap on the 32-bit word
 * holding the element) on arrays whose byte size is not a multiple of 4 (`unsigned char h5[5]`,
 * `short s3[3]`, `signed char c7[7]`) and on sections starting at odd offsets
 * (`copy(h9[1:5])`, `copy(s5[1:3])`): the device copies are allocated in whole words, so the
 * word holding the last (or first) element never reaches past its buffer. */
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

unsigned char h5[5];
short s3[3];
signed char c7[7];
unsigned char h9[9];
short s5[5];

int main(void)
{
    int i;
    for (i = 0; i < 5; i++)
        h5[i] = (unsigned char)i;
    for (i = 0; i < 3; i++)
        s3[i] = (short)(10 * i);
    for (i = 0; i < 7; i++)
        c7[i] = 100;
    for (i = 0; i < 9; i++)
        h9[i] = (unsigned char)(7 * i);
    for (i = 0; i < 5; i++)
        s5[i] = (short)(-3 * i);
#pragma acc parallel loop copy(h5, s3, c7)
    for (int k = 0; k < N; k++) {
#pragma acc atomic update
        h5[k % 5] += 3;
#pragma acc atomic update
        s3[k % 3] += (short)(k % 7);
#pragma acc atomic update
        c7[k % 7] = (signed char)(k % 50) < c7[k % 7] ? (signed char)(k % 50) : c7[k % 7];
    }
#pragma acc parallel loop copy(h9[1:5], s5[1:3])
    for (int k = 0; k < N; k++) {
#pragma acc atomic update
        h9[1 + k % 5]++;
#pragma acc atomic update
        s5[1 + k % 3] += 2;
    }
    static int out[29];
    for (i = 0; i < 5; i++)
        out[i] = h5[i];
    for (i = 0; i < 3; i++)
        out[5 + i] = s3[i];
    for (i = 0; i < 7; i++)
        out[8 + i] = c7[i];
    for (i = 0; i < 9; i++)
        out[15 + i] = h9[i];
    for (i = 0; i < 5; i++)
        out[24 + i] = s5[i];
    dump_int("narrow", out, 29);
    return 0;
}
