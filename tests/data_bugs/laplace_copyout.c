/* planted: uninit
 * from: tests/accsuite/laplace2d/laplace2d.c
 * flags: -I tests/accsuite/utilities -I tests/accsuite/laplace2d -DMINI_DATASET
 * change: `copy(A)` changed to `copyout(A)` */
/**
 * laplace2d.c: Jacobi iteration for the Laplace equation, run until the
 * largest change is below a tolerance (the classic OpenACC tutorial code)
 * Global arrays; a while loop around two parallel loops inside one data
 * region; a max reduction with fmax/fabs.
 */
#include <math.h>
#include <string.h>
#include <stdio.h>
#ifdef _OPENACC
#include <openacc.h>
#endif

#include "laplace2d.h"

double A[NN][NM];
double Anew[NN][NM];

int main(int argc, char** argv)
{
  const int n = NN;
  const int m = NM;
  const int iter_max = ITER_MAX;

  const double tol = 1.0e-6;
  double error = 1.0;
  int i, j;

  memset(A, 0, n * m * sizeof(double));
  memset(Anew, 0, n * m * sizeof(double));

  for (j = 0; j < n; j++)
    {
      A[j][0]    = 1.0;
      Anew[j][0] = 1.0;
    }

#ifdef _OPENACC
  acc_set_device_num(0, acc_device_default);
  fprintf(stderr, "on device: %d\n", acc_on_device(acc_device_host) ? 0 : 1);
#endif

  fprintf(stderr, "Jacobi relaxation Calculation: %d x %d mesh\n", n, m);

  int iter = 0;

  #pragma acc data copyout(A), create(Anew)
  while ( error > tol && iter < iter_max )
    {
      error = 0.0;

      #pragma acc parallel loop reduction(max:error)
      for( j = 1; j < n-1; j++)
	{
	  #pragma acc loop reduction(max:error)
	  for( i = 1; i < m-1; i++ )
	    {
	      Anew[j][i] = 0.25 * ( A[j][i+1] + A[j][i-1]
				    + A[j-1][i] + A[j+1][i]);
	      error = fmax( error, fabs(Anew[j][i] - A[j][i]));
	    }
	}

      #pragma acc parallel loop
      for( j = 1; j < n-1; j++)
	{
	  #pragma acc loop
	  for( i = 1; i < m-1; i++ )
	    {
	      A[j][i] = Anew[j][i];
	    }
	}

      iter++;
    }

  printf("== iter 1\n%d\n", iter);
  printf("== error 1\n%.9g\n", error);
  printf("== A %d\n", n * m);
  for (j = 0; j < n; j++)
    for (i = 0; i < m; i++)
      printf("%.9g\n", A[j][i]);

  return 0;
}
