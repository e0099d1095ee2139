/**
 * syr2k.c: symmetric rank-2k update (lower triangle)
 * OpenACC version with the present_or_* clause spellings of OpenACC 1.0.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "syr2k.h"

static
void init_array(int ni, int nj,
		DATA_TYPE *alpha,
		DATA_TYPE *beta,
		DATA_TYPE POLYBENCH_2D(C,NI,NI,ni,ni),
		DATA_TYPE POLYBENCH_2D(A,NI,NJ,ni,nj),
		DATA_TYPE POLYBENCH_2D(B,NI,NJ,ni,nj))
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      A[i][j] = (DATA_TYPE) ((i*j+1)%ni) / ni;
      B[i][j] = (DATA_TYPE) ((i*j+2)%nj) / nj;
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < ni; j++) {
      C[i][j] = (DATA_TYPE) ((i*j+3)%ni) / nj;
    }
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
void kernel_syr2k(int ni, int nj,
		  DATA_TYPE alpha,
		  DATA_TYPE beta,
		  DATA_TYPE POLYBENCH_2D(C,NI,NI,ni,ni),
		  DATA_TYPE POLYBENCH_2D(A,NI,NJ,ni,nj),
		  DATA_TYPE POLYBENCH_2D(B,NI,NJ,ni,nj))
{
  int i, j, k;

  #pragma scop
  #pragma acc data pcopyin(A, B) present_or_copy(C)
  {
    #pragma acc parallel loop
    for (i = 0; i < _PB_NI; i++)
      for (j = 0; j <= i; j++)
	C[i][j] *= beta;

    #pragma acc parallel loop
    for (i = 0; i < _PB_NI; i++)
      #pragma acc loop
      for (j = 0; j <= i; j++)
	for (k = 0; k < _PB_NJ; k++)
	  C[i][j] += A[j][k]*alpha*B[i][k] + B[j][k]*alpha*A[i][k];
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
  POLYBENCH_2D_ARRAY_DECL(B,DATA_TYPE,NI,NJ,ni,nj);

  init_array (ni, nj, &alpha, &beta,
	      POLYBENCH_ARRAY(C),
	      POLYBENCH_ARRAY(A),
	      POLYBENCH_ARRAY(B));

  polybench_start_instruments;

  kernel_syr2k (ni, nj,
		alpha, beta,
		POLYBENCH_ARRAY(C),
		POLYBENCH_ARRAY(A),
		POLYBENCH_ARRAY(B));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(ni, POLYBENCH_ARRAY(C)));

  POLYBENCH_FREE_ARRAY(C);
  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);

  return 0;
}
