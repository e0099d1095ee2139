/* threshold_u8.c - unsigned char image: `?:`, hex literals with u suffix,
 * casts and saturating arithmetic in a 2-D kernel over an odd-sized image. */
#include "corpus_common.h"

#ifndef H
#define H 61
#endif
#ifndef W
#define W 101
#endif

#define LEVEL 0x80u

void threshold(int h, int w, unsigned char img[h][w], unsigned char out[h][w], int gain)
{
#pragma acc parallel loop copyin(img[0:h][0:w]) copyout(out[0:h][0:w])
    for (int y = 0; y < h; y++) {
#pragma acc loop vector(128)
        for (int x = 0; x < w; x++) {
            unsigned v = img[y][x];
            int boosted = (int)v * gain / 4 + 0x10;
            unsigned char s = (unsigned char)(boosted > 0xFF ? 0xFFu : (unsigned)boosted);
            out[y][x] = v >= LEVEL ? s : (unsigned char)(v >> 1);
        }
    }
}

int main(void)
{
    unsigned char (*img)[W] = xmalloc(sizeof(unsigned char[H][W]));
    unsigned char (*out)[W] = xmalloc(sizeof(unsigned char[H][W]));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            img[y][x] = (unsigned char)((y * 37u + x * 11u) & 0xFFu);
    threshold(H, W, img, out, 5);
    dump_u8("out", &out[0][0], (long)H * W);
    free(img);
    free(out);
    return 0;
}
