/**
 * covariance.c: covariance matrix of M variables over N observations
 * OpenACC version: kernels regions; the symmetric half is mirrored with
 * j2 starting at j1.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "covariance.h"

static
void init_array (int m, int n,
		 DATA_TYPE *float_n,
		 DATA_TYPE POLYBENCH_2D(data,N,M,n,m))
{
  int i, j;

  *float_n = (DATA_TYPE)n;

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = ((DATA_TYPE) i*j) / M;
}

static
void print_array(int m,
		 DATA_TYPE POLYBENCH_2D(symmat,M,M,m,m))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("symmat", m * m);
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++)
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, symmat[i][j]);
  POLYBENCH_DUMP_END("symmat");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_covariance(int m, int n,
		       DATA_TYPE float_n,
		       DATA_TYPE POLYBENCH_2D(data,N,M,n,m),
		       DATA_TYPE POLYBENCH_2D(symmat,M,M,m,m),
		       DATA_TYPE POLYBENCH_1D(mean,M,m))
{
  int i, j, j1, j2;

  #pragma scop
  #pragma acc data copyin(data) copyout(symmat) create(mean)
  {
    /* Determine mean of column vectors of input data matrix */
    #pragma acc kernels
    {
      #pragma acc loop
      for (j = 0; j < _PB_M; j++)
	{
	  mean[j] = 0.0;
	  for (i = 0; i < _PB_N; i++)
	    mean[j] += data[i][j];
	  mean[j] /= float_n;
	}

      /* Center the column vectors. */
      #pragma acc loop
      for (i = 0; i < _PB_N; i++)
	#pragma acc loop
	for (j = 0; j < _PB_M; j++)
	  data[i][j] -= mean[j];
    }

    /* Calculate the m * m covariance matrix. */
    #pragma acc kernels
    {
      #pragma acc loop
      for (j1 = 0; j1 < _PB_M; j1++)
	#pragma acc loop
	for (j2 = j1; j2 < _PB_M; j2++)
	  {
	    symmat[j1][j2] = 0.0;
	    for (i = 0; i < _PB_N; i++)
	      symmat[j1][j2] += data[i][j1] * data[i][j2];
	    symmat[j1][j2] /= (float_n - 1.0);
	    symmat[j2][j1] = symmat[j1][j2];
	  }
    }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;
  int m = M;

  DATA_TYPE float_n;
  POLYBENCH_2D_ARRAY_DECL(data,DATA_TYPE,N,M,n,m);
  POLYBENCH_2D_ARRAY_DECL(symmat,DATA_TYPE,M,M,m,m);
  POLYBENCH_1D_ARRAY_DECL(mean,DATA_TYPE,M,m);

  init_array (m, n, &float_n, POLYBENCH_ARRAY(data));

  polybench_start_instruments;

  kernel_covariance (m, n, float_n,
		     POLYBENCH_ARRAY(data),
		     POLYBENCH_ARRAY(symmat),
		     POLYBENCH_ARRAY(mean));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(m, POLYBENCH_ARRAY(symmat)));

  POLYBENCH_FREE_ARRAY(data);
  POLYBENCH_FREE_ARRAY(symmat);
  POLYBENCH_FREE_ARRAY(mean);

  return 0;
}
