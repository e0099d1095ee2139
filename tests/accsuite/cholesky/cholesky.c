/**
 * cholesky.c: Cholesky decomposition, A = L*L^T (L stored in the lower triangle)
 * OpenACC version: the column loop k is sequential on the host; every step
 * runs two parallel loops on the device inside one data region.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "cholesky.h"

static
void init_array(int n,
		DATA_TYPE POLYBENCH_2D(A,N,N,n,n))
{
  int i, j;

  /* symmetric and diagonally dominant: positive definite */
  for (i = 0; i < n; i++)
    {
      for (j = 0; j < n; j++)
	A[i][j] = (DATA_TYPE) ((i + j) % n) / (2 * n);
      A[i][i] = A[i][i] + n;
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
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, j <= i ? A[i][j] : 0.0);
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_cholesky(int n,
		     DATA_TYPE POLYBENCH_2D(A,N,N,n,n))
{
  int i, j, k;

  #pragma scop
  #pragma acc data copy(A)
  {
    for (k = 0; k < _PB_N; k++)
      {
	#pragma acc parallel
	{
	  A[k][k] = SQRT_FUN(A[k][k]);
	  #pragma acc loop
	  for (i = k + 1; i < _PB_N; i++)
	    A[i][k] = A[i][k] / A[k][k];
	}
	#pragma acc parallel loop
	for (i = k + 1; i < _PB_N; i++)
	  #pragma acc loop
	  for (j = k + 1; j <= i; j++)
	    A[i][j] = A[i][j] - A[i][k] * A[j][k];
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

  kernel_cholesky (n, POLYBENCH_ARRAY(A));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);

  return 0;
}
