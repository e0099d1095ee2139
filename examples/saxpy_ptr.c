/* saxpy_ptr.c - pointer-based kernels: restrict-qualified 1-D saxpy and a
 * flat-indexed 2-D kernel (out[i*cols + j]) with run-time sizes, both with
 * explicit subarray data clauses; arrays are malloc'ed in main. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NVEC
#define NVEC 1000000
#endif
#ifndef ROWS
#define ROWS 300
#endif
#ifndef COLS
#define COLS 500
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

void saxpy(int n, float a, const float *restrict x, float *restrict y)
{
    int i;
#pragma acc parallel loop copyin(x[0:n]) copy(y[0:n])
    for (i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* horizontal 3-point smoothing, clamped at the left/right edge */
void smooth_rows(int rows, int cols, const float *restrict in, float *restrict out)
{
    int i, j;
#pragma acc parallel loop copyin(in[0:rows*cols]) copyout(out[0:rows*cols])
    for (i = 0; i < rows; i++) {
#pragma acc loop
        for (j = 0; j < cols; j++) {
            float l = j > 0 ? in[i * cols + j - 1] : in[i * cols + j];
            float r = j < cols - 1 ? in[i * cols + j + 1] : in[i * cols + j];
            out[i * cols + j] = 0.25f * l + 0.5f * in[i * cols + j] + 0.25f * r;
        }
    }
}

int main(void)
{
    int n = NVEC, rows = ROWS, cols = COLS, i, j;
    float *x = malloc(sizeof(float) * n);
    float *y = malloc(sizeof(float) * n);
    float *img = malloc(sizeof(float) * rows * cols);
    float *sm = malloc(sizeof(float) * rows * cols);

    if (!x || !y || !img || !sm)
        return 1;
    for (i = 0; i < n; i++) {
        x[i] = (float)((i * 7) % 17) / 17.0f;
        y[i] = (float)((i * 3) % 13) / 13.0f;
    }
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++)
            img[i * cols + j] = (float)((i * 7 + j * 3) % 17) / 17.0f;

    saxpy(n, 2.5f, x, y);
    smooth_rows(rows, cols, img, sm);

    dump_float("y", y, n);
    dump_float("out", sm, (long)rows * cols);
    free(x);
    free(y);
    free(img);
    free(sm);
    return 0;
}
