/* cache_stencil2d.c - OpenACC `cache(...)` as the staging hint (no share
 * pragma): a 9-point smoothing stencil whose cached window is the block's tile
 * plus a halo, and a row-vector product whose cached vector is strip-mined. */
#include "corpus_common.h"

#ifndef H
#define H 90
#endif
#ifndef W
#define W 70
#endif

void smooth9(float out[H][W], const float in[H][W])
{
#pragma acc parallel loop independent
    for (int i = 1; i < H - 1; i++) {
#pragma acc loop independent
        for (int j = 1; j < W - 1; j++) {
#pragma acc cache(in[i-1:3][j-1:3])
            float s = 0.0f;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++)
                    s += in[i + di][j + dj] * (di == 0 && dj == 0 ? 0.5f : 0.0625f);
            out[i][j] = s;
        }
    }
}

void rowdot(float y[H], const float a[H][W], const float v[W])
{
#pragma acc parallel loop independent
    for (int i = 0; i < H; i++) {
        float s = 0.0f;
        for (int j = 0; j < W; j++) {
#pragma acc cache(v[0:W])
            s += a[i][j] * v[j];
        }
        y[i] = s;
    }
}

int main(void)
{
    static float in[H][W], out[H][W], y[H], v[W];
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            in[i][j] = (float)((i * 5 + j * 11) % 23) * 0.5f;
            out[i][j] = 0.0f;
        }
    for (int j = 0; j < W; j++)
        v[j] = (float)(j % 9) - 4.0f;
    smooth9(out, in);
    rowdot(y, in, v);
    dump_float("out", &out[0][0], (long)H * W);
    dump_float("y", y, H);
    return 0;
}
