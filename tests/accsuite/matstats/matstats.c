/**
 * matstats.c: statistics of a 2-D field (sum, extremes, counts), written
 * the way OpenACC 2.5/2.6 tutorials write reductions over a loop nest: the
 * reduction clauses on the outer gang loop only, the inner loops with a bare
 * `loop` directive (independent, vector, worker) updating the variables.
 * max/min as the usual macros, as conditional expressions and as `if`
 * updates; a triple nest with the clause on the outermost loop.
 */
#include <math.h>
#include <stdio.h>

#include "matstats.h"

#define max(a,b) ((a) > (b) ? (a) : (b))
#define min(a,b) ((a) < (b) ? (a) : (b))

double A[NN][NM];
int B[NN][NM];
double C[NN][NM][NK];

int main(int argc, char** argv)
{
  int i, j, k;

  for (j = 0; j < NN; j++)
    for (i = 0; i < NM; i++)
      {
        A[j][i] = sin(j * 0.37 + i * 0.71) * (j % 7 + 1) + 0.01 * i;
        B[j][i] = (j * 37 + i * 11) % 9 - 4;
        for (k = 0; k < NK; k++)
          C[j][i][k] = cos(j * 0.13 + i * 0.29 + k * 0.5) / (k + 1);
      }

  double sum = 0.0;
  double amax = -1.0e30, amin = 1.0e30;
  double vmax = -1.0e30, vmin = 1.0e30;
  int bsum = 0, bmax = -1000, bmin = 1000, cnt = 0;
  double csum = 0.0, cmax = -1.0e30;

  /* The macros. */
  #pragma acc parallel loop reduction(+:sum) reduction(max:amax) reduction(min:amin) copyin(A)
  for (j = 0; j < NN; j++)
    {
      #pragma acc loop independent
      for (i = 0; i < NM; i++)
        {
          sum += A[j][i];
          amax = max(amax, A[j][i]);
          amin = min(A[j][i], amin);
        }
    }

  /* Conditional expressions. */
  #pragma acc parallel loop reduction(max:vmax) reduction(min:vmin) copyin(A)
  for (j = 0; j < NN; j++)
    {
      #pragma acc loop vector
      for (i = 0; i < NM; i++)
        {
          vmax = A[j][i] * (i + 1) > vmax ? A[j][i] * (i + 1) : vmax;
          vmin = (vmin < A[j][i] - j) ? vmin : A[j][i] - j;
        }
    }

  /* Integers: `if` updates and a conditional count. */
  #pragma acc parallel loop gang reduction(+:bsum,cnt) reduction(max:bmax) reduction(min:bmin) copyin(B)
  for (j = 0; j < NN; j++)
    {
      #pragma acc loop
      for (i = 0; i < NM; i++)
        {
          bsum += B[j][i] * (j % 3) + i % 2;
          if (B[j][i] + i > bmax) bmax = B[j][i] + i;
          if (bmin > B[j][i] - j) bmin = B[j][i] - j;
          if (B[j][i] > 2) cnt++;
        }
    }

  /* A triple nest, the clause on the outermost loop. */
  #pragma acc parallel loop gang reduction(+:csum) reduction(max:cmax) copyin(C)
  for (j = 0; j < NN; j++)
    {
      #pragma acc loop worker
      for (i = 0; i < NM; i++)
        {
          #pragma acc loop vector
          for (k = 0; k < NK; k++)
            {
              csum += C[j][i][k] * C[j][i][k];
              cmax = fmax(cmax, C[j][i][k] + 0.001 * j);
            }
        }
    }

  printf("== sum 1\n%.9g\n", sum);
  printf("== amax 1\n%.9g\n", amax);
  printf("== amin 1\n%.9g\n", amin);
  printf("== vmax 1\n%.9g\n", vmax);
  printf("== vmin 1\n%.9g\n", vmin);
  printf("== bsum 1\n%d\n", bsum);
  printf("== bmax 1\n%d\n", bmax);
  printf("== bmin 1\n%d\n", bmin);
  printf("== cnt 1\n%d\n", cnt);
  printf("== csum 1\n%.9g\n", csum);
  printf("== cmax 1\n%.9g\n", cmax);

  return 0;
}
