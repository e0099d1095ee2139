/**
 * sor-redblack.c: red-black successive over-relaxation for a Poisson problem
 * The sweep function finds the grid present (main's data region holds it);
 * the inner loop starts at 1 or 2 and steps by 2; the residual norm is a
 * sum reduction followed by sqrt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include "sor-redblack.h"

static double u[N][N];
static double f[N][N];

void sor_sweep(int n, int color, double omega, double h2, double u[N][N], double f[N][N])
{
  int i, j;

  #pragma acc parallel loop present(u, f)
  for (i = 1; i < n - 1; i++) {
    #pragma acc loop
    for (j = 1 + (i + color) % 2; j < n - 1; j += 2)
      u[i][j] = (1.0 - omega) * u[i][j]
	+ omega * 0.25 * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - h2 * f[i][j]);
  }
}

double residual(int n, double h2, double u[N][N], double f[N][N])
{
  int i, j;
  double r, sum = 0.0;

  #pragma acc parallel loop collapse(2) present(u, f) reduction(+:sum) private(r)
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++) {
      r = (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - 4.0 * u[i][j]) / h2 - f[i][j];
      sum += r * r;
    }
  return sqrt(sum);
}

int main(int argc, char **argv)
{
  int n = N;
  int i, j, it, color;
  double h = 1.0 / (n - 1);
  double h2 = h * h;
  double omega = 1.5;
  double res[NITER];

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      u[i][j] = (i == 0 || j == 0 || i == n - 1 || j == n - 1) ? 1.0 : 0.0;
      f[i][j] = (double)((i * 5 + j * 3) % 7) - 3.0;
    }

  #pragma acc data copy(u) copyin(f)
  {
    for (it = 0; it < NITER; it++) {
      for (color = 0; color < 2; color++)
	sor_sweep(n, color, omega, h2, u, f);
      res[it] = residual(n, h2, u, f);
    }
  }

  printf("== res %d\n", NITER);
  for (it = 0; it < NITER; it++)
    printf("%.9g\n", res[it]);
  printf("== u %d\n", n * n);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      printf("%.9g\n", u[i][j]);
  return 0;
}
