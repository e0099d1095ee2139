/* gauss.c - 5x5 Gaussian blur of an 8-bit grey image.
 * Weights are the outer product of (1 4 6 4 1) / 16, i.e. integers summing
 * to 256; the result is rounded with (sum + 128) >> 8.  The 2-pixel border
 * is left as in the input (main copies it), the kernel covers the interior.
 * Each block reads a (TB_Y+4) x (TB_X+4) window of `in`: the hint stages it
 * in shared memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef H
#define H 512
#endif
#ifndef W
#define W 768
#endif

static void dump_u8(const char *name, const unsigned char *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%u\n", (unsigned)a[k]);
}

void gauss5x5(unsigned char out[H][W], unsigned char in[H][W])
{
    int i, j, di;
#pragma acc share(in[TB_Y+4][TB_X+4])
#pragma acc kernels loop independent copyin(in[0:H][0:W]) copy(out[0:H][0:W])
    for (i = 2; i < H - 2; i++) {
#pragma acc loop independent
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

int main(void)
{
    unsigned char (*in)[W] = malloc(sizeof(unsigned char[H][W]));
    unsigned char (*out)[W] = malloc(sizeof(unsigned char[H][W]));
    int i, j;

    if (!in || !out)
        return 1;
    for (i = 0; i < H; i++)
        for (j = 0; j < W; j++)
            in[i][j] = (unsigned char)((i * 7 + j * 3) % 251 + ((i / 16 + j / 16) % 2) * 4);
    memcpy(out, in, sizeof(unsigned char[H][W]));   /* borders stay unchanged */

    gauss5x5(out, in);

    dump_u8("out", &out[0][0], (long)H * W);
    free(in);
    free(out);
    return 0;
}
