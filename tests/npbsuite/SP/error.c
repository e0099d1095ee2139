#include <math.h>
#include "header.h"

//---------------------------------------------------------------------
// the root mean square of the difference between the solution and the
// exact solution, per component (host code: main copied u back)
//---------------------------------------------------------------------
void error_norm(double rms[5])
{
  int i, j, k, m, d;
  double xi, eta, zeta, u_exact[5], add;

  for (m = 0; m < 5; m++) {
    rms[m] = 0.0;
  }

  for (k = 0; k <= grid_points[2]-1; k++) {
    zeta = (double)k * dnzm1;
    for (j = 0; j <= grid_points[1]-1; j++) {
      eta = (double)j * dnym1;
      for (i = 0; i <= grid_points[0]-1; i++) {
        xi = (double)i * dnxm1;
        exact_solution(xi, eta, zeta, u_exact);

        for (m = 0; m < 5; m++) {
          add = u[m][k][j][i]-u_exact[m];
          rms[m] = rms[m] + add*add;
        }
      }
    }
  }

  for (m = 0; m < 5; m++) {
    for (d = 0; d < 3; d++) {
      rms[m] = rms[m] / (double)(grid_points[d]-2);
    }
    rms[m] = sqrt(rms[m]);
  }
}


//---------------------------------------------------------------------
// the root mean square of the right hand side, per component, summed
// on the device
//---------------------------------------------------------------------
void rhs_norm(double rms[5])
{
  int i, j, k, d, m;
  double rms0, rms1, rms2, rms3, rms4;

  rms0 = 0.0;
  rms1 = 0.0;
  rms2 = 0.0;
  rms3 = 0.0;
  rms4 = 0.0;

#pragma acc parallel loop collapse(3) present(rhs) \
        reduction(+:rms0,rms1,rms2,rms3,rms4)
  for (k = 1; k <= nz2; k++) {
    for (j = 1; j <= ny2; j++) {
      for (i = 1; i <= nx2; i++) {
        rms0 = rms0 + rhs[0][k][j][i]*rhs[0][k][j][i];
        rms1 = rms1 + rhs[1][k][j][i]*rhs[1][k][j][i];
        rms2 = rms2 + rhs[2][k][j][i]*rhs[2][k][j][i];
        rms3 = rms3 + rhs[3][k][j][i]*rhs[3][k][j][i];
        rms4 = rms4 + rhs[4][k][j][i]*rhs[4][k][j][i];
      }
    }
  }

  rms[0] = rms0;
  rms[1] = rms1;
  rms[2] = rms2;
  rms[3] = rms3;
  rms[4] = rms4;

  for (m = 0; m < 5; m++) {
    for (d = 0; d < 3; d++) {
      rms[m] = rms[m] / (double)(grid_points[d]-2);
    }
    rms[m] = sqrt(rms[m]);
  }
}
