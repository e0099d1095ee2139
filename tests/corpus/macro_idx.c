/* macro_idx.c - flat pointer indexing through a function-like macro
 * IDX(i,j), #define'd sizes, and #if/#ifdef/#else blocks inside the kernel. */
#include "corpus_common.h"

#ifndef N
#define N 37
#endif
#ifndef M
#define M 61
#endif

#define IDX(i, j) ((i) * M + (j))
#define SQR(x) ((x) * (x))
#define CLAMP01(x) ((x) < 0.0f ? 0.0f : ((x) > 1.0f ? 1.0f : (x)))

/* build with -DNO_GRADIENT to drop the gradient term */
void edge_energy(const float *restrict img, float *restrict energy)
{
#pragma acc parallel loop copyin(img[0:N*M]) copyout(energy[0:N*M])
    for (int i = 0; i < N; i++) {
#pragma acc loop
        for (int j = 0; j < M; j++) {
            float e = SQR(img[IDX(i, j)] - 0.5f);
#ifndef NO_GRADIENT
            if (i > 0 && j > 0) {
                float gx = img[IDX(i, j)] - img[IDX(i, j - 1)];
                float gy = img[IDX(i, j)] - img[IDX(i - 1, j)];
                e += SQR(gx) + SQR(gy);
            }
#endif
#if M > 50
            e *= 0.5f;
#else
            e *= 2.0f;
#endif
            energy[IDX(i, j)] = CLAMP01(e);
        }
    }
}

int main(void)
{
    float *img = xmalloc(sizeof(float) * N * M);
    float *energy = xmalloc(sizeof(float) * N * M);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            img[IDX(i, j)] = INIT2(i, j);
    edge_energy(img, energy);
    dump_float("energy", energy, (long)N * M);
    free(img);
    free(energy);
    return 0;
}
