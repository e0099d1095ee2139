#include "header.h"

//---------------------------------------------------------------------
// The forcing term: minus the spatial operator of compute_rhs (fluxes
// and fourth-order dissipation) applied to the exact solution, so that
// the exact solution is the steady state the time steps converge to.
// Host code, one grid line at a time, the three directions by one
// routine: main copies forcing to the device afterwards.
//---------------------------------------------------------------------

static double ue [PROBLEM_SIZE][5];
static double buf[PROBLEM_SIZE][5];
static double sq [PROBLEM_SIZE];
static double q  [PROBLEM_SIZE];
static double fl [PROBLEM_SIZE][5];


//---------------------------------------------------------------------
// the terms of one direction along a line of n points held in ue:
// vel is the velocity component along the line, t2 the centered
// difference factor, d1t1 the second difference factors, con2..con5
// the viscous factors
//---------------------------------------------------------------------
static void line_terms(int n, int vel, double t2, double d1t1[5],
                       double con2, double con3, double con4, double con5)
{
  int i, m;
  double dtpp, vp1, vijk, vm1, visc, d;

  for (i = 0; i < n; i++) {
    dtpp = 1.0 / ue[i][0];
    buf[i][0] = dtpp;
    for (m = 1; m < 4; m++) {
      buf[i][m] = ue[i][m] * dtpp;
    }
    sq[i] = 0.5 * (ue[i][1]*buf[i][1] + ue[i][2]*buf[i][2] + ue[i][3]*buf[i][3]);
    q[i] = sq[i] * dtpp;
  }

  for (i = 1; i < n-1; i++) {
    vp1  = buf[i+1][vel];
    vijk = buf[i][vel];
    vm1  = buf[i-1][vel];

    for (m = 0; m < 5; m++) {
      fl[i][m] = d1t1[m] * (ue[i+1][m] - 2.0*ue[i][m] + ue[i-1][m]);
    }
    fl[i][0] = fl[i][0] - t2 * (ue[i+1][vel] - ue[i-1][vel]);
    for (m = 1; m < 4; m++) {
      visc = (m == vel) ? con2*con43 : con2;
      fl[i][m] = fl[i][m] + visc * (buf[i+1][m] - 2.0*buf[i][m] + buf[i-1][m])
               - t2 * (ue[i+1][m]*vp1 - ue[i-1][m]*vm1);
    }
    fl[i][vel] = fl[i][vel] - t2 * (ue[i+1][4] - sq[i+1] - ue[i-1][4] + sq[i-1]) * c2;
    fl[i][4] = fl[i][4] + con3 * (q[i+1] - 2.0*q[i] + q[i-1])
             + con4 * (vp1*vp1 - 2.0*vijk*vijk + vm1*vm1)
             + con5 * (ue[i+1][4]*buf[i+1][0] - 2.0*ue[i][4]*buf[i][0] + ue[i-1][4]*buf[i-1][0])
             - t2 * ((c1*ue[i+1][4] - c2*sq[i+1])*vp1 - (c1*ue[i-1][4] - c2*sq[i-1])*vm1);

    //-------------------------------------------------------------------
    // fourth-order dissipation, one-sided near the boundaries
    //-------------------------------------------------------------------
    for (m = 0; m < 5; m++) {
      if (i == 1) {
        d = 5.0*ue[i][m] - 4.0*ue[i+1][m] + ue[i+2][m];
      } else if (i == 2) {
        d = -4.0*ue[i-1][m] + 6.0*ue[i][m] - 4.0*ue[i+1][m] + ue[i+2][m];
      } else if (i == n-3) {
        d = ue[i-2][m] - 4.0*ue[i-1][m] + 6.0*ue[i][m] - 4.0*ue[i+1][m];
      } else if (i == n-2) {
        d = ue[i-2][m] - 4.0*ue[i-1][m] + 5.0*ue[i][m];
      } else {
        d = ue[i-2][m] - 4.0*ue[i-1][m] + 6.0*ue[i][m] - 4.0*ue[i+1][m] + ue[i+2][m];
      }
      fl[i][m] = fl[i][m] - dssp * d;
    }
  }
}


void exact_rhs()
{
  double xi, eta, zeta, d1t1[5];
  int m, i, j, k;

  //---------------------------------------------------------------------
  // zero everywhere, the boundary included
  //---------------------------------------------------------------------
  for (k = 0; k <= grid_points[2]-1; k++) {
    for (j = 0; j <= grid_points[1]-1; j++) {
      for (i = 0; i <= grid_points[0]-1; i++) {
        for (m = 0; m < 5; m++) {
          forcing[m][k][j][i] = 0.0;
        }
      }
    }
  }

  //---------------------------------------------------------------------
  // xi-direction
  //---------------------------------------------------------------------
  d1t1[0] = dx1tx1; d1t1[1] = dx2tx1; d1t1[2] = dx3tx1;
  d1t1[3] = dx4tx1; d1t1[4] = dx5tx1;
  for (k = 1; k <= grid_points[2]-2; k++) {
    zeta = (double)k * dnzm1;
    for (j = 1; j <= grid_points[1]-2; j++) {
      eta = (double)j * dnym1;
      for (i = 0; i <= grid_points[0]-1; i++) {
        xi = (double)i * dnxm1;
        exact_solution(xi, eta, zeta, ue[i]);
      }
      line_terms(grid_points[0], 1, tx2, d1t1, xxcon2, xxcon3, xxcon4, xxcon5);
      for (i = 1; i <= grid_points[0]-2; i++) {
        for (m = 0; m < 5; m++) {
          forcing[m][k][j][i] = forcing[m][k][j][i] + fl[i][m];
        }
      }
    }
  }

  //---------------------------------------------------------------------
  // eta-direction
  //---------------------------------------------------------------------
  d1t1[0] = dy1ty1; d1t1[1] = dy2ty1; d1t1[2] = dy3ty1;
  d1t1[3] = dy4ty1; d1t1[4] = dy5ty1;
  for (k = 1; k <= grid_points[2]-2; k++) {
    zeta = (double)k * dnzm1;
    for (i = 1; i <= grid_points[0]-2; i++) {
      xi = (double)i * dnxm1;
      for (j = 0; j <= grid_points[1]-1; j++) {
        eta = (double)j * dnym1;
        exact_solution(xi, eta, zeta, ue[j]);
      }
      line_terms(grid_points[1], 2, ty2, d1t1, yycon2, yycon3, yycon4, yycon5);
      for (j = 1; j <= grid_points[1]-2; j++) {
        for (m = 0; m < 5; m++) {
          forcing[m][k][j][i] = forcing[m][k][j][i] + fl[j][m];
        }
      }
    }
  }

  //---------------------------------------------------------------------
  // zeta-direction
  //---------------------------------------------------------------------
  d1t1[0] = dz1tz1; d1t1[1] = dz2tz1; d1t1[2] = dz3tz1;
  d1t1[3] = dz4tz1; d1t1[4] = dz5tz1;
  for (j = 1; j <= grid_points[1]-2; j++) {
    eta = (double)j * dnym1;
    for (i = 1; i <= grid_points[0]-2; i++) {
      xi = (double)i * dnxm1;
      for (k = 0; k <= grid_points[2]-1; k++) {
        zeta = (double)k * dnzm1;
        exact_solution(xi, eta, zeta, ue[k]);
      }
      line_terms(grid_points[2], 3, tz2, d1t1, zzcon2, zzcon3, zzcon4, zzcon5);
      for (k = 1; k <= grid_points[2]-2; k++) {
        for (m = 0; m < 5; m++) {
          forcing[m][k][j][i] = forcing[m][k][j][i] + fl[k][m];
        }
      }
    }
  }

  //---------------------------------------------------------------------
  // now change the sign of the forcing function
  //---------------------------------------------------------------------
  for (k = 1; k <= grid_points[2]-2; k++) {
    for (j = 1; j <= grid_points[1]-2; j++) {
      for (i = 1; i <= grid_points[0]-2; i++) {
        for (m = 0; m < 5; m++) {
          forcing[m][k][j][i] = -1.0 * forcing[m][k][j][i];
        }
      }
    }
  }
}
