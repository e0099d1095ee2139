/* sharpen_short.c - 1-D sharpening of a signed 16-bit signal, row by row:
 * out = 3*x - (left + right), clamped to the short range. The first and
 * last sample of each row keep the input's values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef H
#define H 37
#endif
#ifndef W
#define W 91
#endif

static void dump_short(const char *name, const short *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%d\n", (int)a[k]);
}

void sharpen(short out[H][W], short in[H][W])
{
#pragma acc parallel loop collapse(2) copyin(in[0:H][0:W]) copy(out[0:H][0:W])
    for (int i = 0; i < H; i++) {
        for (int j = 1; j < W - 1; j++) {
            int v = 3 * in[i][j] - (in[i][j - 1] + in[i][j + 1]);
            out[i][j] = (short)(v > 32767 ? 32767 : (v < -32768 ? -32768 : v));
        }
    }
}

int main(void)
{
    short (*in)[W] = malloc(sizeof(short[H][W]));
    short (*out)[W] = malloc(sizeof(short[H][W]));
    int i, j;

    if (!in || !out)
        return 1;
    for (i = 0; i < H; i++)
        for (j = 0; j < W; j++)
            in[i][j] = (short)(((i * 977 + j * 331) % 40000) - 20000);
    memcpy(out, in, sizeof(short[H][W]));
    sharpen(out, in);
    dump_short("out", &out[0][0], (long)H * W);
    free(in);
    free(out);
    return 0;
}
