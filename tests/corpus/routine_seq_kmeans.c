/* routine_seq_kmeans.c - the assignment step of k-means in the style of Rodinia's OpenACC
 * kmeans: `#pragma acc routine seq` functions (a squared distance over a row passed as `P[i]`,
 * `&P[i][0]` and `flat + i * D`, a nested routine, a void routine updating a row in place)
 * called from a parallel loop, inlined by accshare. */
#include "corpus_common.h"

#ifndef NP
#define NP 150
#endif
#define D 7
#define K 5

float P[NP][D], C[K][D], out[NP], flat[NP * D];
int lab[NP];

#pragma acc routine seq
static float sq(float v) { return v * v; }

#pragma acc routine seq
float dist(const float *a, const float *b, int d)
{
    float s = 0.0f;
    for (int k = 0; k < d; k++)
        s += sq(a[k] - b[k]);
    return s;
}

#pragma acc routine seq
void scale_row(float *r, int d, float f)
{
    for (int k = 0; k < d; k++)
        r[k] = r[k] * f;
}

void assign(void)
{
#pragma acc parallel loop copyin(P, C) copyout(out, lab) copy(flat)
    for (int i = 0; i < NP; i++) {
        float best = dist(P[i], C[0], D);
        int b = 0;
        for (int c = 1; c < K; c++) {
            float d = 0.5f * (dist(&P[i][0], C[c], D) + dist(flat + i * D, C[c], D));
            if (d < best) {
                best = d;
                b = c;
            }
        }
        scale_row(&flat[i * D], D, 2.0f);
        out[i] = best + sq(best);
        lab[i] = b;
    }
}

int main(void)
{
    for (int i = 0; i < NP; i++)
        for (int k = 0; k < D; k++) {
            P[i][k] = (float)((i * 7 + k * 3) % 11) / 11.0f;
            flat[i * D + k] = P[i][k];
        }
    for (int c = 0; c < K; c++)
        for (int k = 0; k < D; k++)
            C[c][k] = (float)((c * 5 + k) % 9) / 9.0f;
    assign();
    dump_float("out", out, NP);
    dump_int("lab", lab, NP);
    dump_float("flat", flat, NP * D);
    return 0;
}
