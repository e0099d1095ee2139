/* conv3x3.c - 3x3 convolution of a float image with a filter array K.
 * Interior points only; the two inner loops over the filter have constant
 * trip count 3 and are run sequentially by each thread.  The border of
 * `out` keeps the value main gave it. */
#include <stdio.h>
#include <stdlib.h>

#ifndef H
#define H 512
#endif
#ifndef W
#define W 512
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

void conv3x3(float out[H][W], float in[H][W], float K[3][3])
{
    int i, j, di, dj;
#pragma acc kernels loop independent copyin(in[0:H][0:W], K[0:3][0:3]) copy(out[0:H][0:W])
    for (i = 1; i < H - 1; i++) {
#pragma acc loop independent
        for (j = 1; j < W - 1; j++) {
            float acc = 0.0f;
            for (di = -1; di <= 1; di++)
                for (dj = -1; dj <= 1; dj++)
                    acc += K[di + 1][dj + 1] * in[i + di][j + dj];
            out[i][j] = acc;
        }
    }
}

int main(void)
{
    float (*in)[W] = malloc(sizeof(float[H][W]));
    float (*out)[W] = malloc(sizeof(float[H][W]));
    float K[3][3] = {
        { 0.0625f, 0.125f, 0.0625f },
        { 0.125f, -0.75f, 0.125f },
        { 0.0625f, 0.125f, 0.0625f },
    };
    int i, j;

    if (!in || !out)
        return 1;
    for (i = 0; i < H; i++)
        for (j = 0; j < W; j++) {
            in[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f;
            out[i][j] = 0.0f;
        }

    conv3x3(out, in, K);

    dump_float("out", &out[0][0], (long)H * W);
    free(in);
    free(out);
    return 0;
}
