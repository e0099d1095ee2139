/* gauss.c - 5x5 Gaussian filter of an 8-bit grey image, H x W (default
 * 2048 x 2048). Weights: the outer product of (1 4 6 4 1), summing to 256;
 * the result is rounded with (sum + 128) >> 8. The 2-pixel border keeps the
 * input's values (init copies them); the kernel covers the interior.
 * Plain OpenACC with collapse(2). */
#include "five.h"

#ifndef H
#define H 2048
#endif
#ifndef W
#define W 2048
#endif

static void init(unsigned char in[H][W], unsigned char out[H][W])
{
    int i, j;
    for (i = 0; i < H; i++)
        for (j = 0; j < W; j++) {
            in[i][j] = (unsigned char)((i * 7 + j * 3) % 251 + ((i / 16 + j / 16) % 2) * 4);
            out[i][j] = in[i][j];
        }
}

static double kernel_gauss(unsigned char out[H][W], unsigned char in[H][W])
{
    int i, j, di;
    double t0 = five_now();
#pragma scop
#pragma acc data copyin(in[0:H][0:W]) copy(out[0:H][0:W])
    {
#pragma acc parallel loop collapse(2)
        for (i = 2; i < H - 2; i++) {
            for (j = 2; j < W - 2; j++) {
                int sum = 0;
                for (di = -2; di <= 2; di++) {
                    int wr = (di == 0) ? 6 : ((di == 1 || di == -1) ? 4 : 1);
                    sum += wr * (in[i + di][j - 2] + 4 * in[i + di][j - 1] + 6 * in[i + di][j]
                                 + 4 * in[i + di][j + 1] + in[i + di][j + 2]);
                }
                out[i][j] = (unsigned char)((sum + 128) >> 8);
            }
        }
    }
#pragma endscop
    return five_now() - t0;
}

int main(void)
{
    unsigned char (*in)[W] = five_alloc(sizeof(unsigned char[H][W]));
    unsigned char (*out)[W] = five_alloc(sizeof(unsigned char[H][W]));
    int r;

    for (r = 0; r < REPS; r++) {
        init(in, out);
        five_time(kernel_gauss(out, in));
    }
    five_checksum_u8(&out[0][0], (long)H * W);
    five_dump_u8("out", &out[0][0], (long)H * W);
    free(in);
    free(out);
    return 0;
}
