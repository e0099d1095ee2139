/* smooth3_u8_share.c - a 3-tap smoothing of an 8-bit image along x that reads
 * the pixel and the two after it, staged in shared memory: the tile of `in`
 * starts at column 1 of every block, one byte past a 4-byte word, so its copy
 * is not grouped into vectors (every vector would straddle two words). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef H
#define H 45
#endif
#ifndef W
#define W 70
#endif

static void dump_u8(const char *name, const unsigned char *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%u\n", (unsigned)a[k]);
}

void smooth3(unsigned char out[H][W], unsigned char in[H][W])
{
#pragma acc share(in[TB_Y][TB_X+2])
#pragma acc parallel loop collapse(2) copyin(in[0:H][0:W]) copy(out[0:H][0:W])
    for (int i = 0; i < H; i++) {
        for (int j = 1; j < W - 2; j++) {
            int s = in[i][j] + in[i][j + 1] + in[i][j + 2];
            out[i][j] = (unsigned char)((s + 1) / 3);
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
            in[i][j] = (unsigned char)((i * 13 + j * 7 + (i ^ j)) & 0xFF);
    memcpy(out, in, sizeof(unsigned char[H][W]));
    smooth3(out, in);
    dump_u8("out", &out[0][0], (long)H * W);
    free(in);
    free(out);
    return 0;
}
