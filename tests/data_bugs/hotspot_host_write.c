/* planted: device
 * from: tests/accsuite/hotspot/hotspot.c
 * flags: -I tests/accsuite/utilities -I tests/accsuite/hotspot -DMINI_DATASET
 * change: host write `temp[0] = 330.0f;` added after `enter data copyin(temp)` (the kernels that read `temp` run in `compute_tran_temp` -> `single_iteration`) */
/**
 * hotspot.c: thermal simulation of a chip (Rodinia-style)
 * OpenACC version: main puts the grids on the device with enter data; the
 * per-step kernels find them present; the result is read back with update
 * host and exit data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#ifdef _OPENACC
#include <openacc.h>
#endif

#include "hotspot.h"

/* maximum power density possible (say 300W for a 10mm x 10mm chip) */
#define MAX_PD	(3.0e6)
/* required precision in degrees */
#define PRECISION	0.001
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100
/* capacitance fitting factor */
#define FACTOR_CHIP	0.5

/* chip parameters */
const float t_chip = 0.0005;
const float chip_height = 0.016;
const float chip_width = 0.016;
/* ambient temperature, assuming no package at all */
const float amb_temp = 80.0;

void single_iteration(float *result, float *temp, float *power, int row, int col,
		      float Cap_1, float Rx_1, float Ry_1, float Rz_1)
{
  int r, c;
  float delta;

  #pragma acc parallel loop gang present(result, temp, power) private(delta)
  for (r = 0; r < row; r++) {
    #pragma acc loop vector
    for (c = 0; c < col; c++) {
      float tc = temp[r*col+c];
      float tn = (r == 0) ? tc : temp[(r-1)*col+c];
      float ts = (r == row-1) ? tc : temp[(r+1)*col+c];
      float tw = (c == 0) ? tc : temp[r*col+c-1];
      float te = (c == col-1) ? tc : temp[r*col+c+1];
      delta = Cap_1 * (power[r*col+c] +
		       (ts + tn - 2.0f*tc) * Ry_1 +
		       (te + tw - 2.0f*tc) * Rx_1 +
		       (amb_temp - tc) * Rz_1);
      result[r*col+c] = tc + delta;
    }
  }

  #pragma acc parallel loop collapse(2) present(result, temp)
  for (r = 0; r < row; r++)
    for (c = 0; c < col; c++)
      temp[r*col+c] = result[r*col+c];
}

void compute_tran_temp(float *result, int num_iterations, float *temp, float *power,
		       int row, int col)
{
  float grid_height = chip_height / row;
  float grid_width = chip_width / col;

  float Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
  float Rx = grid_width / (2.0 * K_SI * t_chip * grid_height);
  float Ry = grid_height / (2.0 * K_SI * t_chip * grid_width);
  float Rz = t_chip / (K_SI * grid_height * grid_width);

  float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);
  float step = PRECISION / max_slope / 1000.0;

  float Rx_1 = 1.f / Rx;
  float Ry_1 = 1.f / Ry;
  float Rz_1 = 1.f / Rz;
  float Cap_1 = step / Cap;
  int i;

  for (i = 0; i < num_iterations; i++)
    single_iteration(result, temp, power, row, col, Cap_1, Rx_1, Ry_1, Rz_1);
}

static void dump(const char *name, const float *a, int n)
{
  int i;
  printf("== %s %d\n", name, n);
  for (i = 0; i < n; i++)
    printf("%.9g\n", a[i]);
}

int main(int argc, char **argv)
{
  int grid_rows = GRID_ROWS, grid_cols = GRID_COLS;
  int sim_time = SIM_TIME;
  int size = grid_rows * grid_cols;
  int i, j;
  float *temp, *power, *result;

#ifdef _OPENACC
  if (acc_get_num_devices(acc_device_default) < 1) {
    fprintf(stderr, "no OpenACC device\n");
    return 1;
  }
  acc_init(acc_device_default);
#endif

  temp = (float *) calloc(size, sizeof(float));
  power = (float *) calloc(size, sizeof(float));
  result = (float *) calloc(size, sizeof(float));
  if (!temp || !power || !result) {
    fprintf(stderr, "unable to allocate memory\n");
    return 1;
  }

  for (i = 0; i < grid_rows; i++)
    for (j = 0; j < grid_cols; j++) {
      temp[i*grid_cols+j] = 323.0f + (float)((i * 17 + j * 5) % 23) * 0.5f;
      power[i*grid_cols+j] = (float)((i * 3 + j * 11) % 29) * 1.0e-3f;
    }

  #pragma acc enter data copyin(temp[0:size], power[0:size]) create(result[0:size])
  temp[0] = 330.0f;

  compute_tran_temp(result, sim_time, temp, power, grid_rows, grid_cols);

  #pragma acc update host(result[0:size])
  #pragma acc exit data copyout(temp[0:size]) delete(power[0:size], result[0:size])

  dump("temp", temp, size);
  dump("result", result, size);

  free(temp);
  free(power);
  free(result);
#ifdef _OPENACC
  acc_shutdown(acc_device_default);
#endif
  return 0;
}
