/* hotspot.c - Rodinia HotSpot: transient 2-D thermal simulation of a chip,
 * ROWS x COLS (default 2048 x 2048), STEPS time steps (default 10). Each step
 * computes `result` on the interior from `temp` (5-point stencil plus the
 * power and ambient terms), then copies it back into `temp`. The time loop
 * sits inside one data region, so the grids stay on the device. Plain OpenACC
 * (parallel loop / loop). */
#include "five.h"

#ifndef ROWS
#define ROWS 2048
#endif
#ifndef COLS
#define COLS 2048
#endif
#ifndef STEPS
#define STEPS 10
#endif

/* chip parameters (from Rodinia) */
#define MAX_PD          (3.0e6f)
#define PRECISION       0.001f
#define SPEC_HEAT_SI    1.75e6f
#define K_SI            100.0f
#define FACTOR_CHIP     0.5f
#define T_CHIP          0.0005f
#define CHIP_HEIGHT     0.016f
#define CHIP_WIDTH      0.016f
#define AMB_TEMP        80.0f

static void init(float temp[ROWS][COLS], float power[ROWS][COLS], float result[ROWS][COLS])
{
    int r, c;
    for (r = 0; r < ROWS; r++)
        for (c = 0; c < COLS; c++) {
            temp[r][c] = 323.0f + (float)((r * 7 + c * 3) % 17);
            power[r][c] = (float)((r * 5 + c * 11) % 13) * 1.0e-3f;
            result[r][c] = 0.0f;
        }
}

static double kernel_hotspot(float temp[ROWS][COLS], float power[ROWS][COLS],
                             float result[ROWS][COLS], float step_div_cap,
                             float Rx_1, float Ry_1, float Rz_1, float amb_temp)
{
    int t, r, c;
    double t0 = five_now();
#pragma scop
#pragma acc data copy(temp[0:ROWS][0:COLS]) copyin(power[0:ROWS][0:COLS]) create(result[0:ROWS][0:COLS])
    {
        for (t = 0; t < STEPS; t++) {
#pragma acc parallel loop
            for (r = 1; r < ROWS - 1; r++) {
#pragma acc loop
                for (c = 1; c < COLS - 1; c++) {
                    result[r][c] = temp[r][c] + step_div_cap * (power[r][c]
                        + (temp[r + 1][c] + temp[r - 1][c] - 2.0f * temp[r][c]) * Ry_1
                        + (temp[r][c + 1] + temp[r][c - 1] - 2.0f * temp[r][c]) * Rx_1
                        + (amb_temp - temp[r][c]) * Rz_1);
                }
            }
#pragma acc parallel loop
            for (r = 1; r < ROWS - 1; r++) {
#pragma acc loop
                for (c = 1; c < COLS - 1; c++)
                    temp[r][c] = result[r][c];
            }
        }
    }
#pragma endscop
    return five_now() - t0;
}

int main(void)
{
    float (*temp)[COLS] = five_alloc(sizeof(float[ROWS][COLS]));
    float (*power)[COLS] = five_alloc(sizeof(float[ROWS][COLS]));
    float (*result)[COLS] = five_alloc(sizeof(float[ROWS][COLS]));
    float grid_height = CHIP_HEIGHT / ROWS;
    float grid_width = CHIP_WIDTH / COLS;
    float Cap = FACTOR_CHIP * SPEC_HEAT_SI * T_CHIP * grid_width * grid_height;
    float Rx = grid_width / (2.0f * K_SI * T_CHIP * grid_height);
    float Ry = grid_height / (2.0f * K_SI * T_CHIP * grid_width);
    float Rz = T_CHIP / (K_SI * grid_height * grid_width);
    float max_slope = MAX_PD / (FACTOR_CHIP * T_CHIP * SPEC_HEAT_SI);
    float step = PRECISION / max_slope;
    int r;

    for (r = 0; r < REPS; r++) {
        init(temp, power, result);
        five_time(kernel_hotspot(temp, power, result, step / Cap,
                                 1.0f / Rx, 1.0f / Ry, 1.0f / Rz, AMB_TEMP));
    }
    five_checksum_float(&temp[0][0], (long)ROWS * COLS);
    five_dump_float("temp", &temp[0][0], (long)ROWS * COLS);
    free(temp);
    free(power);
    free(result);
    return 0;
}
