/**
 * trmm.c: B := alpha*A^T*B, A unit lower triangular
 * OpenACC version: the column loop is parallel; the row loop runs in each
 * iteration (B[i][j] reads rows below i, written later).
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "trmm.h"

static
void init_array(int m, int n,
		DATA_TYPE *alpha,
		DATA_TYPE POLYBENCH_2D(A,NI,NI,m,m),
		DATA_TYPE POLYBENCH_2D(B,NI,NI,m,n))
{
  int i, j;

  *alpha = 1.5;
  for (i = 0; i < m; i++) {
    for (j = 0; j < i; j++)
      A[i][j] = (DATA_TYPE)((i+j) % m)/(2*m);
    A[i][i] = 1.0;
    for (j = 0; j < n; j++)
      B[i][j] = (DATA_TYPE)((n+(i-j)) % n)/n;
  }
}

static
void print_array(int m, int n,
		 DATA_TYPE POLYBENCH_2D(B,NI,NI,m,n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("B", m * n);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, B[i][j]);
  POLYBENCH_DUMP_END("B");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_trmm(int m, int n,
		 DATA_TYPE alpha,
		 DATA_TYPE POLYBENCH_2D(A,NI,NI,m,m),
		 DATA_TYPE POLYBENCH_2D(B,NI,NI,m,n))
{
  int i, j, k;

  #pragma scop
  #pragma acc parallel copyin(A) copy(B)
  {
    #pragma acc loop
    for (j = 0; j < n; j++)
      for (i = 0; i < m; ++i) {
	for (k = i+1; k < m; ++k)
	  B[i][j] += A[k][i] * B[k][j];
	B[i][j] = alpha * B[i][j];
      }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int m = NI;
  int n = NI;

  DATA_TYPE alpha;
  POLYBENCH_2D_ARRAY_DECL(A,DATA_TYPE,NI,NI,m,m);
  POLYBENCH_2D_ARRAY_DECL(B,DATA_TYPE,NI,NI,m,n);

  init_array (m, n, &alpha, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));

  polybench_start_instruments;

  kernel_trmm (m, n, alpha, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(m, n, POLYBENCH_ARRAY(B)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);

  return 0;
}
