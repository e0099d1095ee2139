/* aos_interleaved_pairs.c - complex numbers stored as interleaved pairs in a float array
 * (`x[2*i]` the real part, `x[2*i+1]` the imaginary part), the form of FFT codes: a complex
 * scaling by a twiddle array, then the squared magnitudes. */
#include <stdio.h>
#include "corpus_common.h"

#ifndef N
#define N 1000
#endif

void twiddle(int n, float *restrict out, const float *restrict x, const float *restrict w,
             float *restrict mag)
{
#pragma acc parallel loop copyin(x[0:2*n], w[0:2*n]) copyout(out[0:2*n], mag[0:n])
    for (int i = 0; i < n; i++) {
        out[2 * i] = x[2 * i] * w[2 * i] - x[2 * i + 1] * w[2 * i + 1];
        out[2 * i + 1] = x[2 * i] * w[2 * i + 1] + x[2 * i + 1] * w[2 * i];
        mag[i] = out[2 * i] * out[2 * i] + out[2 * i + 1] * out[2 * i + 1];
    }
}

int main(void)
{
    static float x[2 * N], w[2 * N], out[2 * N], mag[N];
    for (int i = 0; i < N; i++) {
        x[2 * i] = (float)(i % 11) - 5.0f;
        x[2 * i + 1] = (float)(i % 7) * 0.5f;
        w[2 * i] = (float)((3 * i) % 5) * 0.25f;
        w[2 * i + 1] = 1.0f - (float)(i % 3);
    }
    twiddle(N, out, x, w, mag);
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += (i % 9 + 1) * (double)mag[i] + out[2 * i];
    printf("checksum %.6e\n", sum);
    dump_float("out", out, 2L * N);
    dump_float("mag", mag, (long)N);
    return 0;
}
