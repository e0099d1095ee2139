/* transpose_u8_share.c - out = in^T + 3 for an 8-bit image, the transposed
 * result written through a shared tile (`:coalesce`): the tile is stored back
 * to global memory by a cooperative copy, which moves 4 bytes per work-item
 * (short words) where the tile's rows allow. */
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

void transpose(unsigned char out[W][H], unsigned char in[H][W])
{
#pragma acc share(out[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent copyin(in[0:H][0:W]) copy(out[0:W][0:H])
    for (int i = 0; i < H; i++) {
#pragma acc loop independent
        for (int j = 0; j < W; j++)
            out[j][i] = (unsigned char)(in[i][j] + 3);
    }
}

int main(void)
{
    unsigned char (*in)[W] = malloc(sizeof(unsigned char[H][W]));
    unsigned char (*out)[H] = malloc(sizeof(unsigned char[W][H]));
    int i, j;

    if (!in || !out)
        return 1;
    for (i = 0; i < H; i++)
        for (j = 0; j < W; j++)
            in[i][j] = (unsigned char)((i * 13 + j * 7 + (i ^ j)) & 0xFF);
    for (j = 0; j < W; j++)
        for (i = 0; i < H; i++)
            out[j][i] = 0;
    transpose(out, in);
    dump_u8("out", &out[0][0], (long)W * H);
    free(in);
    free(out);
    return 0;
}
