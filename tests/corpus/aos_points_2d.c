/* aos_points_2d.c - a 2-D grid of 3-D points as an array of `struct pt` (a struct tag, no
 * typedef): each point is moved towards the mean of its neighbours along x, and its squared
 * distance from the origin is written both into a float array and into a field. Struct member
 * access in kernels, read and written, in a 2-D array of structs. The edge columns are not
 * written: `copy`, not `copyout`, keeps the host's values there. */
#include <stdio.h>
#include "corpus_common.h"

#ifndef N
#define N 120
#endif
#ifndef M
#define M 70
#endif

struct pt {
    float x, y, z;
    float w;
};

void relax(struct pt q[N][M], const struct pt p[N][M], float d2[N][M])
{
#pragma acc parallel loop collapse(2) copyin(p[0:N][0:M]) copy(q[0:N][0:M], d2[0:N][0:M])
    for (int i = 0; i < N; i++)
        for (int j = 1; j < M - 1; j++) {
            q[i][j].x = 0.5f * p[i][j].x + 0.25f * (p[i][j - 1].x + p[i][j + 1].x);
            q[i][j].y = 0.5f * p[i][j].y + 0.25f * (p[i][j - 1].y + p[i][j + 1].y);
            q[i][j].z = p[i][j].z;
            d2[i][j] = q[i][j].x * q[i][j].x + q[i][j].y * q[i][j].y + q[i][j].z * q[i][j].z;
            q[i][j].w = d2[i][j];
        }
}

int main(void)
{
    static struct pt p[N][M], q[N][M];
    static float d2[N][M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            p[i][j].x = (float)((i * 3 + j) % 19) - 9.0f;
            p[i][j].y = (float)((i + 5 * j) % 23) * 0.5f;
            p[i][j].z = (float)(i - j) * 0.125f;
            p[i][j].w = 0.0f;
            q[i][j].x = q[i][j].y = q[i][j].z = q[i][j].w = -1.0f;
            d2[i][j] = 0.0f;
        }
    relax(q, p, d2);
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            sum += q[i][j].w * ((i + j) % 5 + 1) + q[i][j].x;
    printf("checksum %.6e\n", sum);
    dump_float("q", &q[0][0].x, 4L * N * M);
    dump_float("d2", &d2[0][0], (long)N * M);
    return 0;
}
