/**
 * durbin.c: Levinson-Durbin recursion (Toeplitz system solver)
 * OpenACC version: the recursion over k stays sequential; each step's dot
 * product is a parallel reduction and the update runs on the device. alpha,
 * beta and sum are scalars of the function used across regions.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "durbin.h"

static
void init_array (int n,
		 DATA_TYPE POLYBENCH_1D(r,N,n))
{
  int i;

  /* autocorrelation of a stationary process: a well-conditioned system */
  for (i = 0; i < n; i++)
    r[i] = 0.5 * pow(0.6, i + 1) + 0.2 * pow(0.3, i + 1);
}

static
void print_array(int n,
		 DATA_TYPE POLYBENCH_1D(y,N,n))
{
  int i;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("y", n);
  for (i = 0; i < n; i++)
    fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, y[i]);
  POLYBENCH_DUMP_END("y");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_durbin(int n,
		   DATA_TYPE POLYBENCH_1D(r,N,n),
		   DATA_TYPE POLYBENCH_1D(y,N,n))
{
  DATA_TYPE z[N];
  DATA_TYPE alpha;
  DATA_TYPE beta;
  DATA_TYPE sum;

  int i, k;

  #pragma scop
  y[0] = -r[0];
  beta = SCALAR_VAL(1.0);
  alpha = -r[0];

  #pragma acc data copyin(r) copy(y) create(z)
  {
    for (k = 1; k < _PB_N; k++) {
      beta = (1 - alpha * alpha) * beta;
      sum = SCALAR_VAL(0.0);
      #pragma acc parallel loop reduction(+:sum)
      for (i = 0; i < k; i++) {
	sum += r[k - i - 1] * y[i];
      }
      alpha = - (r[k] + sum) / beta;

      #pragma acc parallel loop
      for (i = 0; i < k; i++) {
	z[i] = y[i] + alpha * y[k - i - 1];
      }
      #pragma acc parallel loop
      for (i = 0; i < k; i++) {
	y[i] = z[i];
      }
      #pragma acc parallel
      y[k] = alpha;
    }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_1D_ARRAY_DECL(r, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array (n, POLYBENCH_ARRAY(r));

  polybench_start_instruments;

  kernel_durbin (n, POLYBENCH_ARRAY(r), POLYBENCH_ARRAY(y));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(y)));

  POLYBENCH_FREE_ARRAY(r);
  POLYBENCH_FREE_ARRAY(y);

  return 0;
}
