/**
 * gramschmidt.c: QR decomposition with modified Gram-Schmidt
 * OpenACC version: for every column k, one parallel region computes the
 * norm (a scalar declared at the top of the function) with statements
 * between its loops, then the projections of the remaining columns.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "gramschmidt.h"

static
void init_array(int m, int n,
		DATA_TYPE POLYBENCH_2D(A,NI,NJ,m,n),
		DATA_TYPE POLYBENCH_2D(R,NJ,NJ,n,n),
		DATA_TYPE POLYBENCH_2D(Q,NI,NJ,m,n))
{
  int i, j;

  /* columns far from dependent: a strong diagonal plus small noise */
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (((DATA_TYPE) ((i*j) % m) / m )*100) / 1000 + (i == j ? 1.0 : 0.0) + 0.01;
      Q[i][j] = 0.0;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = 0.0;
}

static
void print_array(int m, int n,
		 DATA_TYPE POLYBENCH_2D(A,NI,NJ,m,n),
		 DATA_TYPE POLYBENCH_2D(R,NJ,NJ,n,n),
		 DATA_TYPE POLYBENCH_2D(Q,NI,NJ,m,n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("R", n * n);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, R[i][j]);
  POLYBENCH_DUMP_END("R");

  POLYBENCH_DUMP_BEGIN("Q", m * n);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, Q[i][j]);
  POLYBENCH_DUMP_END("Q");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_gramschmidt(int m, int n,
			DATA_TYPE POLYBENCH_2D(A,NI,NJ,m,n),
			DATA_TYPE POLYBENCH_2D(R,NJ,NJ,n,n),
			DATA_TYPE POLYBENCH_2D(Q,NI,NJ,m,n))
{
  int i, j, k;

  DATA_TYPE nrm;

  #pragma scop
  #pragma acc data copy(A, R) copyout(Q)
  {
    for (k = 0; k < n; k++)
      {
	#pragma acc parallel
	{
	  nrm = SCALAR_VAL(0.0);
	  #pragma acc loop reduction(+:nrm)
	  for (i = 0; i < m; i++)
	    nrm += A[i][k] * A[i][k];
	  R[k][k] = SQRT_FUN(nrm);
	  #pragma acc loop
	  for (i = 0; i < m; i++)
	    Q[i][k] = A[i][k] / R[k][k];
	}
	#pragma acc parallel loop
	for (j = k + 1; j < n; j++)
	  {
	    R[k][j] = SCALAR_VAL(0.0);
	    for (i = 0; i < m; i++)
	      R[k][j] += Q[i][k] * A[i][j];
	    for (i = 0; i < m; i++)
	      A[i][j] = A[i][j] - Q[i][k] * R[k][j];
	  }
      }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int m = NI;
  int n = NJ;

  POLYBENCH_2D_ARRAY_DECL(A,DATA_TYPE,NI,NJ,m,n);
  POLYBENCH_2D_ARRAY_DECL(R,DATA_TYPE,NJ,NJ,n,n);
  POLYBENCH_2D_ARRAY_DECL(Q,DATA_TYPE,NI,NJ,m,n);

  init_array (m, n,
	      POLYBENCH_ARRAY(A),
	      POLYBENCH_ARRAY(R),
	      POLYBENCH_ARRAY(Q));

  polybench_start_instruments;

  kernel_gramschmidt (m, n,
		      POLYBENCH_ARRAY(A),
		      POLYBENCH_ARRAY(R),
		      POLYBENCH_ARRAY(Q));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(m, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(R), POLYBENCH_ARRAY(Q)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(R);
  POLYBENCH_FREE_ARRAY(Q);

  return 0;
}
