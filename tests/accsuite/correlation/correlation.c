/**
 * correlation.c: correlation matrix of M variables over N observations
 * OpenACC version: column sums in acc loops over the observations, sqrt and
 * pow from the math library, a double epsilon in float code.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "correlation.h"

static
void init_array (int m,
		 int n,
		 DATA_TYPE *float_n,
		 DATA_TYPE POLYBENCH_2D(data,N,M,n,m))
{
  int i, j;

  *float_n = (DATA_TYPE)N;

  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (DATA_TYPE)(i*j)/M + i + 0.1 * ((i * 7 + j * 3) % 11);
}

static
void print_array(int m,
		 DATA_TYPE POLYBENCH_2D(corr,M,M,m,m))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("corr", m * m);
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++)
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, corr[i][j]);
  POLYBENCH_DUMP_END("corr");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_correlation(int m, int n,
			DATA_TYPE float_n,
			DATA_TYPE POLYBENCH_2D(data,N,M,n,m),
			DATA_TYPE POLYBENCH_2D(corr,M,M,m,m),
			DATA_TYPE POLYBENCH_1D(mean,M,m),
			DATA_TYPE POLYBENCH_1D(stddev,M,m))
{
  int i, j, k;

  DATA_TYPE eps = 0.1;

  #pragma scop
  #pragma acc data copy(data) copyout(corr) create(mean, stddev)
  {
    /* Determine mean of column vectors of input data matrix */
    #pragma acc parallel loop
    for (j = 0; j < _PB_M; j++)
      {
	mean[j] = SCALAR_VAL(0.0);
	#pragma acc loop
	for (i = 0; i < _PB_N; i++)
	  mean[j] += data[i][j];
	mean[j] /= float_n;
      }

    /* Determine standard deviations of column vectors of data matrix. */
    #pragma acc parallel loop
    for (j = 0; j < _PB_M; j++)
      {
	stddev[j] = SCALAR_VAL(0.0);
	#pragma acc loop
	for (i = 0; i < _PB_N; i++)
	  stddev[j] += pow(data[i][j] - mean[j], 2);
	stddev[j] /= float_n;
	stddev[j] = SQRT_FUN(stddev[j]);
	/* The following in an inelegant but usual way to handle
	   near-zero std. dev. values, which below would cause a zero-
	   divide. */
	stddev[j] = stddev[j] <= eps ? SCALAR_VAL(1.0) : stddev[j];
      }

    /* Center and reduce the column vectors. */
    #pragma acc parallel loop collapse(2)
    for (i = 0; i < _PB_N; i++)
      for (j = 0; j < _PB_M; j++)
	{
	  data[i][j] -= mean[j];
	  data[i][j] /= SQRT_FUN(float_n) * stddev[j];
	}

    /* Calculate the m * m correlation matrix. */
    #pragma acc parallel loop
    for (i = 0; i < _PB_M-1; i++)
      {
	corr[i][i] = SCALAR_VAL(1.0);
	#pragma acc loop
	for (j = i+1; j < _PB_M; j++)
	  {
	    corr[i][j] = SCALAR_VAL(0.0);
	    for (k = 0; k < _PB_N; k++)
	      corr[i][j] += (data[k][i] * data[k][j]);
	    corr[j][i] = corr[i][j];
	  }
      }
    #pragma acc parallel
    corr[_PB_M-1][_PB_M-1] = SCALAR_VAL(1.0);
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;
  int m = M;

  DATA_TYPE float_n;
  POLYBENCH_2D_ARRAY_DECL(data,DATA_TYPE,N,M,n,m);
  POLYBENCH_2D_ARRAY_DECL(corr,DATA_TYPE,M,M,m,m);
  POLYBENCH_1D_ARRAY_DECL(mean,DATA_TYPE,M,m);
  POLYBENCH_1D_ARRAY_DECL(stddev,DATA_TYPE,M,m);

  init_array (m, n, &float_n, POLYBENCH_ARRAY(data));

  polybench_start_instruments;

  kernel_correlation (m, n, float_n,
		      POLYBENCH_ARRAY(data),
		      POLYBENCH_ARRAY(corr),
		      POLYBENCH_ARRAY(mean),
		      POLYBENCH_ARRAY(stddev));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(m, POLYBENCH_ARRAY(corr)));

  POLYBENCH_FREE_ARRAY(data);
  POLYBENCH_FREE_ARRAY(corr);
  POLYBENCH_FREE_ARRAY(mean);
  POLYBENCH_FREE_ARRAY(stddev);

  return 0;
}
