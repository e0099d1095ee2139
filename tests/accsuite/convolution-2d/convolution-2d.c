/**
 * convolution-2d.c: 3x3 convolution (PolyBench/GPU style)
 * OpenACC version: kernels loop independent; the coefficients are double
 * constants in float code.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "convolution-2d.h"

static
void init_array (int ni, int nj,
		 DATA_TYPE POLYBENCH_2D(A,NI,NJ,ni,nj))
{
  int i, j;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      A[i][j] = (float)rand()/RAND_MAX;
}

static
void print_array(int ni, int nj,
		 DATA_TYPE POLYBENCH_2D(B,NI,NJ,ni,nj))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("B", ni * nj);
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, B[i][j]);
  POLYBENCH_DUMP_END("B");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_conv2d(int ni,
		   int nj,
		   DATA_TYPE POLYBENCH_2D(A,NI,NJ,ni,nj),
		   DATA_TYPE POLYBENCH_2D(B,NI,NJ,ni,nj))
{
  int i, j;
  DATA_TYPE c11, c12, c13, c21, c22, c23, c31, c32, c33;

  c11 = +0.2;  c21 = +0.5;  c31 = -0.8;
  c12 = -0.3;  c22 = +0.6;  c32 = -0.9;
  c13 = +0.4;  c23 = +0.7;  c33 = +0.10;

  #pragma scop
  #pragma acc kernels copyin(A) copy(B)
  {
    #pragma acc loop independent gang
    for (i = 1; i < _PB_NI - 1; ++i)
      {
	#pragma acc loop independent vector(32)
	for (j = 1; j < _PB_NJ - 1; ++j)
	  {
	    B[i][j] =  c11 * A[i - 1][j - 1]  +  c12 * A[i + 0][j - 1]  +  c13 * A[i + 1][j - 1]
	      + c21 * A[i - 1][j + 0]  +  c22 * A[i + 0][j + 0]  +  c23 * A[i + 1][j + 0]
	      + c31 * A[i - 1][j + 1]  +  c32 * A[i + 0][j + 1]  +  c33 * A[i + 1][j + 1];
	  }
      }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int ni = NI;
  int nj = NJ;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, NI, NJ, ni, nj);
  POLYBENCH_2D_ARRAY_DECL(B, DATA_TYPE, NI, NJ, ni, nj);

  srand(5497);
  init_array (ni, nj, POLYBENCH_ARRAY(A));

  polybench_start_instruments;

  kernel_conv2d (ni, nj, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(ni, nj, POLYBENCH_ARRAY(B)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);

  return 0;
}
