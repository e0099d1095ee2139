/**
 * crpl-heat.c: an explicit heat-equation solver written the way published
 * OpenACC C ports of a large benchmark suite write their loops: every
 * directive chosen by the preprocessor right above the loop it annotates,
 *
 *   #ifndef CRPL_COMP
 *   #pragma acc parallel loop ...
 *   #elif CRPL_COMP == 0
 *   #pragma acc kernels loop ...
 *   #endif
 *
 * (CRPL_COMP selects the compiler-specific variant; crpl-heat.h defines it
 * for the SMALL dataset, so both branches are exercised), a data region
 * opened under `#ifdef _OPENACC`, an OpenMP alternative in an `#else`, and
 * conditionals nested inside the loops. The runtime API's header is included
 * by crpl-heat.h, not by this file.
 */
#include <stdio.h>
#include <math.h>

#include "crpl-heat.h"

static double u[NX][NY];
static double unew[NX][NY];
static double flux[NX];

static void init(void)
{
  int i, j;
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      u[i][j] = (i == 0 || j == 0) ? 1.0 : 0.01 * ((i * 7 + j * 3) % 11);
}

int main(void)
{
  int i, j, step;
  double total = 0.0;

  init();
#ifdef _OPENACC
  acc_init(acc_device_default);
#endif

#ifdef _OPENACC
#pragma acc data copy(u) create(unew) copyout(flux)
#endif
  {
    for (step = 0; step < STEPS; step++) {
#ifndef CRPL_COMP
#pragma acc parallel loop gang present(u, unew)
#elif CRPL_COMP == 0
#pragma acc kernels loop gang independent present(u, unew)
#endif
      for (i = 1; i < NX - 1; i++) {
#ifndef CRPL_COMP
#pragma acc loop vector
#elif CRPL_COMP == 0
#pragma acc loop independent
#endif
        for (j = 1; j < NY - 1; j++) {
          unew[i][j] = u[i][j] + 0.1 * (u[i - 1][j] + u[i + 1][j]
                                      + u[i][j - 1] + u[i][j + 1]
                                      - 4.0 * u[i][j]);
        }
      }

#if defined(CRPL_COMP) && CRPL_COMP == 0
#pragma acc kernels loop independent present(u, unew)
#else
#pragma acc parallel loop present(u, unew)
#endif
      for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
#ifdef HEAT_RELAX
          u[i][j] = 0.5 * (u[i][j] + unew[i][j]);
#else
          u[i][j] = unew[i][j];
#endif
    }

#ifdef _OPENACC
#pragma acc parallel loop present(u, flux)
#else
#pragma omp parallel for private(j)
#endif
    for (i = 0; i < NX; i++) {
      double s = 0.0;
      for (j = 0; j < NY; j++)
        s += u[i][j];
      flux[i] = s;
    }
  }

  for (i = 0; i < NX; i++)
    total += flux[i];

  printf("== total 1\n%.9g\n", total);
  printf("== flux %d\n", NX);
  for (i = 0; i < NX; i++)
    printf("%.9g\n", flux[i]);
  printf("== u %d\n", NX * NY);
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      printf("%.9g\n", u[i][j]);
  return 0;
}
