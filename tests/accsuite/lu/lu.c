/**
 * lu.c: LU decomposition without pivoting (in place)
 * OpenACC version: one parallel region holds the whole elimination; the
 * pivot loop k is marked seq and the row loops run in parallel.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "lu.h"

static
void init_array (int n,
		 DATA_TYPE POLYBENCH_2D(A,N,N,n,n))
{
  int i, j;

  /* diagonally dominant: no pivoting needed */
  for (i = 0; i < n; i++)
    {
      for (j = 0; j < n; j++)
	A[i][j] = (DATA_TYPE)((i * 3 + j * 7) % n) / n;
      A[i][i] = A[i][i] + 2 * n;
    }
}

static
void print_array(int n,
		 DATA_TYPE POLYBENCH_2D(A,N,N,n,n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A", n * n);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i][j]);
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_lu(int n,
	       DATA_TYPE POLYBENCH_2D(A,N,N,n,n))
{
  int i, j, k;

  #pragma scop
  #pragma acc parallel copy(A) num_gangs(1)
  {
    #pragma acc loop seq
    for (k = 0; k < _PB_N; k++)
      {
	#pragma acc loop
	for (j = k + 1; j < _PB_N; j++)
	  A[k][j] = A[k][j] / A[k][k];
	#pragma acc loop
	for (i = k + 1; i < _PB_N; i++)
	  #pragma acc loop
	  for (j = k + 1; j < _PB_N; j++)
	    A[i][j] = A[i][j] - A[i][k] * A[k][j];
      }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array (n, POLYBENCH_ARRAY(A));

  polybench_start_instruments;

  kernel_lu (n, POLYBENCH_ARRAY(A));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);

  return 0;
}
