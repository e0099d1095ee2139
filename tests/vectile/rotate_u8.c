/* rotate_u8.c - rotate an 8-bit grey image by 90 degrees (dst[x][H-1-y] =
 * src[y][x] read as a gather along columns), the image-processing style of
 * the seed's 8-bit kernels. */
#include <stdio.h>
#include <stdlib.h>

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

void rotate(unsigned char dst[W][H], unsigned char src[H][W])
{
#pragma acc parallel loop collapse(2) copyin(src[0:H][0:W]) copyout(dst[0:W][0:H])
    for (int x = 0; x < W; x++)
        for (int y = 0; y < H; y++)
            dst[x][y] = src[H - 1 - y][x];
}

int main(void)
{
    unsigned char (*src)[W] = malloc(sizeof(unsigned char[H][W]));
    unsigned char (*dst)[H] = malloc(sizeof(unsigned char[W][H]));
    if (!src || !dst)
        return 1;
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++)
            src[i][j] = (unsigned char)((i * 31 + j * 5 + (i ^ j)) & 0xFF);
    rotate(dst, src);
    dump_u8("dst", &dst[0][0], (long)W * H);
    free(src);
    free(dst);
    return 0;
}
