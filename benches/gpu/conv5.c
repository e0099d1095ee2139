/* conv5.c - 5x5 convolution of a float image, H x W (default 2048 x 2048), written as two
 * tap loops over a weight array (`for di ... for dj ...`: the form of most filters, where
 * gauss.c sums each row by hand). The weights are the outer product of (1 4 6 4 1) / 256 and
 * the pixels multiples of 1/8 below 32, so every product and partial sum is exact and the
 * result does not depend on the order of the additions or on contraction into FMAs. The
 * 2-pixel border keeps the input's values (init copies them). Plain OpenACC with
 * collapse(2). */
#include "five.h"

#ifndef H
#define H 2048
#endif
#ifndef W
#define W 2048
#endif

static void init(float in[H][W], float out[H][W], float K[5][5])
{
    static const float w[5] = { 1.0f, 4.0f, 6.0f, 4.0f, 1.0f };
    int i, j;
    for (i = 0; i < H; i++)
        for (j = 0; j < W; j++) {
            in[i][j] = (float)((i * 7 + j * 3) % 251) * 0.125f;
            out[i][j] = in[i][j];
        }
    for (i = 0; i < 5; i++)
        for (j = 0; j < 5; j++)
            K[i][j] = w[i] * w[j] / 256.0f;
}

static double kernel_conv5(float out[H][W], float in[H][W], float K[5][5])
{
    int i, j, di, dj;
    double t0 = five_now();
#pragma scop
#pragma acc data copyin(in[0:H][0:W], K[0:5][0:5]) copy(out[0:H][0:W])
    {
#pragma acc parallel loop collapse(2)
        for (i = 2; i < H - 2; i++) {
            for (j = 2; j < W - 2; j++) {
                float s = 0.0f;
                for (di = -2; di <= 2; di++)
                    for (dj = -2; dj <= 2; dj++)
                        s += K[di + 2][dj + 2] * in[i + di][j + dj];
                out[i][j] = s;
            }
        }
    }
#pragma endscop
    return five_now() - t0;
}

int main(void)
{
    float (*in)[W] = five_alloc(sizeof(float[H][W]));
    float (*out)[W] = five_alloc(sizeof(float[H][W]));
    float K[5][5];
    int r;

    for (r = 0; r < REPS; r++) {
        init(in, out, K);
        five_time(kernel_conv5(out, in, K));
    }
    five_checksum_float(&out[0][0], (long)H * W);
    five_dump_float("out", &out[0][0], (long)H * W);
    free(in);
    free(out);
    return 0;
}
