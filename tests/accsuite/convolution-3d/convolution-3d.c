/**
 * convolution-3d.c: 3-D convolution (PolyBench/GPU style)
 * OpenACC version: a parallel region with num_gangs/vector_length and a
 * collapsed triple loop.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "convolution-3d.h"

static
void init_array (int ni, int nj, int nk,
		 DATA_TYPE POLYBENCH_3D(A,NI,NJ,NK,ni,nj,nk))
{
  int i, j, k;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
	A[i][j][k] = i % 12 + 2 * (j % 7) + 3 * (k % 13);
}

static
void print_array(int ni, int nj, int nk,
		 DATA_TYPE POLYBENCH_3D(B,NI,NJ,NK,ni,nj,nk))
{
  int i, j, k;

  /* only the interior is computed: the border of B is undefined */
  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("B", (ni - 2) * (nj - 2) * (nk - 2));
  for (i = 1; i < ni - 1; i++)
    for (j = 1; j < nj - 1; j++)
      for (k = 1; k < nk - 1; k++)
	fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, B[i][j][k]);
  POLYBENCH_DUMP_END("B");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_conv3d(int ni, int nj, int nk,
		   DATA_TYPE POLYBENCH_3D(A,NI,NJ,NK,ni,nj,nk),
		   DATA_TYPE POLYBENCH_3D(B,NI,NJ,NK,ni,nj,nk))
{
  int i, j, k;
  DATA_TYPE c11, c12, c13, c21, c22, c23, c31, c32, c33;

  c11 = +2;  c21 = +5;  c31 = -8;
  c12 = -3;  c22 = +6;  c32 = -9;
  c13 = +4;  c23 = +7;  c33 = +10;

  #pragma scop
  #pragma acc parallel num_gangs(64) vector_length(128) copyin(A) copyout(B)
  {
    #pragma acc loop gang vector collapse(3)
    for (i = 1; i < _PB_NI - 1; ++i)
      for (j = 1; j < _PB_NJ - 1; ++j)
	for (k = 1; k < _PB_NK - 1; ++k)
	  {
	    B[i][j][k] = c11 * A[(i - 1)][(j - 1)][(k - 1)]  +  c13 * A[(i + 1)][(j - 1)][(k - 1)]
	      +   c21 * A[(i - 1)][(j - 1)][(k - 1)]  +  c23 * A[(i + 1)][(j - 1)][(k - 1)]
	      +   c31 * A[(i - 1)][(j - 1)][(k - 1)]  +  c33 * A[(i + 1)][(j - 1)][(k - 1)]
	      +   c12 * A[(i + 0)][(j - 1)][(k + 0)]  +  c22 * A[(i + 0)][(j + 0)][(k + 0)]
	      +   c32 * A[(i + 0)][(j + 1)][(k + 0)]  +  c11 * A[(i - 1)][(j - 1)][(k + 1)]
	      +   c13 * A[(i + 1)][(j - 1)][(k + 1)]  +  c21 * A[(i - 1)][(j + 0)][(k + 1)]
	      +   c23 * A[(i + 1)][(j + 0)][(k + 1)]  +  c31 * A[(i - 1)][(j + 1)][(k + 1)]
	      +   c33 * A[(i + 1)][(j + 1)][(k + 1)];
	  }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int ni = NI;
  int nj = NJ;
  int nk = NK;

  POLYBENCH_3D_ARRAY_DECL(A, DATA_TYPE, NI, NJ, NK, ni, nj, nk);
  POLYBENCH_3D_ARRAY_DECL(B, DATA_TYPE, NI, NJ, NK, ni, nj, nk);

  init_array (ni, nj, nk, POLYBENCH_ARRAY(A));

  polybench_start_instruments;

  kernel_conv3d (ni, nj, nk, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(ni, nj, nk, POLYBENCH_ARRAY(B)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);

  return 0;
}
