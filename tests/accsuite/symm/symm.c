/**
 * symm.c: C := alpha*A*B + beta*C, A symmetric (lower triangle stored)
 * OpenACC version: temp2 declared at the top of the function, one parallel
 * loop over the columns; the row loop carries C[k][j] updates and runs in
 * each iteration.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "symm.h"

static
void init_array(int m, int n,
		DATA_TYPE *alpha,
		DATA_TYPE *beta,
		DATA_TYPE POLYBENCH_2D(C,NI,NJ,m,n),
		DATA_TYPE POLYBENCH_2D(A,NI,NI,m,m),
		DATA_TYPE POLYBENCH_2D(B,NI,NJ,m,n))
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (DATA_TYPE) ((i+j) % 100) / m;
      B[i][j] = (DATA_TYPE) ((n+i-j) % 100) / m;
    }
  for (i = 0; i < m; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (DATA_TYPE) ((i+j) % 100) / m;
    for (j = i+1; j < m; j++)
      A[i][j] = -999; /* regions of arrays that should not be used */
  }
}

static
void print_array(int m, int n,
		 DATA_TYPE POLYBENCH_2D(C,NI,NJ,m,n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("C", m * n);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, C[i][j]);
  POLYBENCH_DUMP_END("C");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_symm(int m, int n,
		 DATA_TYPE alpha,
		 DATA_TYPE beta,
		 DATA_TYPE POLYBENCH_2D(C,NI,NJ,m,n),
		 DATA_TYPE POLYBENCH_2D(A,NI,NI,m,m),
		 DATA_TYPE POLYBENCH_2D(B,NI,NJ,m,n))
{
  int i, j, k;
  DATA_TYPE temp2;

  #pragma scop
  #pragma acc data copyin(A, B) copy(C)
  {
    #pragma acc parallel loop
    for (j = 0; j < n; j++)
      for (i = 0; i < m; i++)
	{
	  temp2 = 0;
	  for (k = 0; k < i; k++) {
	    C[k][j] += alpha*B[i][j] * A[i][k];
	    temp2 += B[k][j] * A[i][k];
	  }
	  C[i][j] = beta * C[i][j] + alpha*B[i][j] * A[i][i] + alpha * temp2;
	}
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int m = NI;
  int n = NJ;

  DATA_TYPE alpha;
  DATA_TYPE beta;
  POLYBENCH_2D_ARRAY_DECL(C,DATA_TYPE,NI,NJ,m,n);
  POLYBENCH_2D_ARRAY_DECL(A,DATA_TYPE,NI,NI,m,m);
  POLYBENCH_2D_ARRAY_DECL(B,DATA_TYPE,NI,NJ,m,n);

  init_array (m, n, &alpha, &beta,
	      POLYBENCH_ARRAY(C),
	      POLYBENCH_ARRAY(A),
	      POLYBENCH_ARRAY(B));

  polybench_start_instruments;

  kernel_symm (m, n,
	       alpha, beta,
	       POLYBENCH_ARRAY(C),
	       POLYBENCH_ARRAY(A),
	       POLYBENCH_ARRAY(B));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(m, n, POLYBENCH_ARRAY(C)));

  POLYBENCH_FREE_ARRAY(C);
  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);

  return 0;
}
