/**
 * atax.c: y := A^T * (A * x)
 * OpenACC version: a parallel region per product; the inner loops carry the
 * sums (acc loop without independent, as PolyBench/ACC writes them).
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "atax.h"

static
void init_array (int nx, int ny,
		 DATA_TYPE POLYBENCH_2D(A,NX,NY,nx,ny),
		 DATA_TYPE POLYBENCH_1D(x,NY,ny))
{
  int i, j;
  DATA_TYPE fn;
  fn = (DATA_TYPE)ny;

  for (i = 0; i < ny; i++)
      x[i] = 1 + (i / fn);
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++)
      A[i][j] = (DATA_TYPE) ((i+j) % ny) / (5*nx);
}

static
void print_array(int ny,
		 DATA_TYPE POLYBENCH_1D(y,NY,ny))
{
  int i;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("y", ny);
  for (i = 0; i < ny; i++) {
    fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, y[i]);
  }
  POLYBENCH_DUMP_END("y");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_atax(int nx, int ny,
		 DATA_TYPE POLYBENCH_2D(A,NX,NY,nx,ny),
		 DATA_TYPE POLYBENCH_1D(x,NY,ny),
		 DATA_TYPE POLYBENCH_1D(y,NY,ny),
		 DATA_TYPE POLYBENCH_1D(tmp,NX,nx))
{
  int i, j;

  #pragma scop
  #pragma acc data copyin(A, x) create(tmp) copyout(y)
  {
    #pragma acc parallel
    {
      #pragma acc loop
      for (i = 0; i < _PB_NX; i++)
	{
	  tmp[i] = SCALAR_VAL(0.0);
	  #pragma acc loop
	  for (j = 0; j < _PB_NY; j++)
	    tmp[i] = tmp[i] + A[i][j] * x[j];
	}
    }
    #pragma acc parallel
    {
      #pragma acc loop
      for (j = 0; j < _PB_NY; j++)
	{
	  y[j] = SCALAR_VAL(0.0);
	  #pragma acc loop
	  for (i = 0; i < _PB_NX; i++)
	    y[j] = y[j] + A[i][j] * tmp[i];
	}
    }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int nx = NX;
  int ny = NY;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, NX, NY, nx, ny);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, NY, ny);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, NY, ny);
  POLYBENCH_1D_ARRAY_DECL(tmp, DATA_TYPE, NX, nx);

  init_array (nx, ny, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(x));

  polybench_start_instruments;

  kernel_atax (nx, ny,
	       POLYBENCH_ARRAY(A),
	       POLYBENCH_ARRAY(x),
	       POLYBENCH_ARRAY(y),
	       POLYBENCH_ARRAY(tmp));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(ny, POLYBENCH_ARRAY(y)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(y);
  POLYBENCH_FREE_ARRAY(tmp);

  return 0;
}
