/**
 * syrk.c: symmetric rank-k update, C := alpha*A*A^T + beta*C (lower triangle)
 * OpenACC version: kernels loop with gang/vector on a triangular nest.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "syrk.h"

static
void init_array(int ni, int nj,
		DATA_TYPE *alpha,
		DATA_TYPE *beta,
		DATA_TYPE POLYBENCH_2D(C,NI,NI,ni,ni),
		DATA_TYPE POLYBENCH_2D(A,NI,NJ,ni,nj))
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      A[i][j] = (DATA_TYPE) ((i*j+1)%ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < ni; j++)
      C[i][j] = (DATA_TYPE) ((i*j+2)%nj) / nj;
}

static
void print_array(int ni,
		 DATA_TYPE POLYBENCH_2D(C,NI,NI,ni,ni))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("C", ni * ni);
  for (i = 0; i < ni; i++)
    for (j = 0; j < ni; j++)
      fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, C[i][j]);
  POLYBENCH_DUMP_END("C");
  POLYBENCH_DUMP_FINISH;
}

static
void kernel_syrk(int ni, int nj,
		 DATA_TYPE alpha,
		 DATA_TYPE beta,
		 DATA_TYPE POLYBENCH_2D(C,NI,NI,ni,ni),
		 DATA_TYPE POLYBENCH_2D(A,NI,NJ,ni,nj))
{
  int i, j, k;

  #pragma scop
  #pragma acc data copyin(A) copy(C)
  {
    #pragma acc kernels loop gang
    for (i = 0; i < _PB_NI; i++) {
      #pragma acc loop vector
      for (j = 0; j <= i; j++)
	C[i][j] *= beta;
      for (k = 0; k < _PB_NJ; k++) {
	#pragma acc loop vector
	for (j = 0; j <= i; j++)
	  C[i][j] += alpha * A[i][k] * A[j][k];
      }
    }
  }
  #pragma endscop
}

int main(int argc, char** argv)
{
  int ni = NI;
  int nj = NJ;

  DATA_TYPE alpha;
  DATA_TYPE beta;
  POLYBENCH_2D_ARRAY_DECL(C,DATA_TYPE,NI,NI,ni,ni);
  POLYBENCH_2D_ARRAY_DECL(A,DATA_TYPE,NI,NJ,ni,nj);

  init_array (ni, nj, &alpha, &beta, POLYBENCH_ARRAY(C), POLYBENCH_ARRAY(A));

  polybench_start_instruments;

  kernel_syrk (ni, nj, alpha, beta, POLYBENCH_ARRAY(C), POLYBENCH_ARRAY(A));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(ni, POLYBENCH_ARRAY(C)));

  POLYBENCH_FREE_ARRAY(C);
  POLYBENCH_FREE_ARRAY(A);

  return 0;
}
