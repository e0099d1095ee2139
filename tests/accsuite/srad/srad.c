/**
 * srad.c: speckle reducing anisotropic diffusion (Rodinia srad_v2-style)
 * OpenACC version: a reduction over the region of interest, then the
 * diffusion coefficients and the update in every iteration; the scalars of
 * the computation are declared at the top of the function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include "srad.h"

static void dump(const char *name, const float *a, int n)
{
  int i;
  printf("== %s %d\n", name, n);
  for (i = 0; i < n; i++)
    printf("%.9g\n", a[i]);
}

void srad(int niter, int rows, int cols, int r1, int r2, int c1, int c2, float lambda,
	  float *I, float *J, float *c, float *dN, float *dS, float *dW, float *dE,
	  int *iN, int *iS, int *jW, int *jE)
{
  int size = rows * cols;
  int size_R = (r2 - r1 + 1) * (c2 - c1 + 1);
  int i, j, k, iter;
  float Jc, G2, L, num, den, qsqr;
  float sum, sum2, tmp, meanROI, varROI, q0sqr;
  float cN, cS, cW, cE, D;

  #pragma acc data copyin(I[0:size], iN[0:rows], iS[0:rows], jW[0:cols], jE[0:cols]) \
      copyout(J[0:size]) create(c[0:size], dN[0:size], dS[0:size], dW[0:size], dE[0:size])
  {
    #pragma acc parallel loop
    for (k = 0; k < size; k++)
      J[k] = (float)exp(I[k]);

    for (iter = 0; iter < niter; iter++) {
      sum = 0;
      sum2 = 0;
      #pragma acc parallel loop collapse(2) reduction(+:sum, sum2) private(tmp)
      for (i = r1; i <= r2; i++) {
	for (j = c1; j <= c2; j++) {
	  tmp = J[i * cols + j];
	  sum += tmp;
	  sum2 += tmp * tmp;
	}
      }
      meanROI = sum / size_R;
      varROI = (sum2 / size_R) - meanROI * meanROI;
      q0sqr = varROI / (meanROI * meanROI);

      #pragma acc parallel loop
      for (i = 0; i < rows; i++) {
	#pragma acc loop
	for (j = 0; j < cols; j++) {
	  k = i * cols + j;
	  Jc = J[k];

	  /* directional derivates */
	  dN[k] = J[iN[i] * cols + j] - Jc;
	  dS[k] = J[iS[i] * cols + j] - Jc;
	  dW[k] = J[i * cols + jW[j]] - Jc;
	  dE[k] = J[i * cols + jE[j]] - Jc;

	  G2 = (dN[k] * dN[k] + dS[k] * dS[k]
		+ dW[k] * dW[k] + dE[k] * dE[k]) / (Jc * Jc);

	  L = (dN[k] + dS[k] + dW[k] + dE[k]) / Jc;

	  num = (0.5 * G2) - ((1.0 / 16.0) * (L * L));
	  den = 1 + (.25 * L);
	  qsqr = num / (den * den);

	  /* diffusion coefficent (equ 33) */
	  den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
	  c[k] = 1.0 / (1.0 + den);

	  /* saturate diffusion coefficent */
	  if (c[k] < 0) { c[k] = 0; }
	  else if (c[k] > 1) { c[k] = 1; }
	}
      }

      #pragma acc parallel loop
      for (i = 0; i < rows; i++) {
	#pragma acc loop
	for (j = 0; j < cols; j++) {
	  /* current index */
	  k = i * cols + j;

	  /* diffusion coefficent */
	  cN = c[k];
	  cS = c[iS[i] * cols + j];
	  cW = c[k];
	  cE = c[i * cols + jE[j]];

	  /* divergence (equ 58) */
	  D = cN * dN[k] + cS * dS[k] + cW * dW[k] + cE * dE[k];

	  /* image update (equ 61) */
	  J[k] = J[k] + 0.25 * lambda * D;
	}
      }
    }
  }
}

int main(int argc, char *argv[])
{
  int rows = ROWS, cols = COLS;
  int r1 = 0, r2 = ROWS / 2, c1 = 1, c2 = COLS / 2;
  float lambda = 0.5;
  int niter = NITER;
  int size = rows * cols;
  int i, j;
  float *I, *J, *c, *dN, *dS, *dW, *dE;
  int *iN, *iS, *jW, *jE;

  I = (float *)malloc(size * sizeof(float));
  J = (float *)malloc(size * sizeof(float));
  c = (float *)malloc(sizeof(float) * size);
  dN = (float *)malloc(sizeof(float) * size);
  dS = (float *)malloc(sizeof(float) * size);
  dW = (float *)malloc(sizeof(float) * size);
  dE = (float *)malloc(sizeof(float) * size);
  iN = (int *)malloc(sizeof(int) * rows);
  iS = (int *)malloc(sizeof(int) * rows);
  jW = (int *)malloc(sizeof(int) * cols);
  jE = (int *)malloc(sizeof(int) * cols);

  for (i = 0; i < rows; i++) {
    iN[i] = i - 1;
    iS[i] = i + 1;
  }
  for (j = 0; j < cols; j++) {
    jW[j] = j - 1;
    jE[j] = j + 1;
  }
  iN[0] = 0;
  iS[rows - 1] = rows - 1;
  jW[0] = 0;
  jE[cols - 1] = cols - 1;

  for (i = 0; i < rows; i++)
    for (j = 0; j < cols; j++)
      I[i * cols + j] = (float)((i * 37 + j * 11) % 64) / 64.0f;

  srad(niter, rows, cols, r1, r2, c1, c2, lambda, I, J, c, dN, dS, dW, dE, iN, iS, jW, jE);

  dump("J", J, size);

  free(I); free(J); free(c);
  free(dN); free(dS); free(dW); free(dE);
  free(iN); free(iS); free(jW); free(jE);
  return 0;
}
