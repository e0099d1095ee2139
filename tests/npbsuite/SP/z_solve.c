#include "header.h"
#include "timers.h"

//---------------------------------------------------------------------
// z_solve solves the pentadiagonal systems of the z factor along the
// lines of k: one line per (j, i) thread, in order along k.  The three
// systems (u, u+c, u-c) share their matrices for the first three
// components.  Then tzetar.
//---------------------------------------------------------------------
void z_solve()
{
  int i, j, k, k1, k2, m;
  int gp01, gp02, gp03, gp04;
  double ru1, fac1, fac2;

  if (timeron) timer_start(t_zsolve);

  gp01 = grid_points[2]-1;
  gp02 = grid_points[2]-2;
  gp03 = grid_points[2]-3;
  gp04 = grid_points[2]-4;

#pragma acc parallel loop gang num_gangs(ny2) num_workers(8) vector_length(32) \
        present(rho_i, ws, speed, rhs, lhs, lhsp, lhsm, rhos)
  for (j = 1; j <= ny2; j++) {
    #pragma acc loop worker vector
    for (i = 1; i <= nx2; i++) {
      //-----------------------------------------------------------------
      // the boundary rows are the identity
      //-----------------------------------------------------------------
      for (m = 0; m < 5; m++) {
        lhs [m][0][j][i] = 0.0;
        lhsp[m][0][j][i] = 0.0;
        lhsm[m][0][j][i] = 0.0;
        lhs [m][nz2+1][j][i] = 0.0;
        lhsp[m][nz2+1][j][i] = 0.0;
        lhsm[m][nz2+1][j][i] = 0.0;
      }
      lhs [2][0][j][i] = 1.0;
      lhsp[2][0][j][i] = 1.0;
      lhsm[2][0][j][i] = 1.0;
      lhs [2][nz2+1][j][i] = 1.0;
      lhsp[2][nz2+1][j][i] = 1.0;
      lhsm[2][nz2+1][j][i] = 1.0;

      //-----------------------------------------------------------------
      // first fill the lhs for the u-eigenvalue
      //-----------------------------------------------------------------
      for (k = 0; k <= gp01; k++) {
        ru1 = c3c4*rho_i[k][j][i];
        rhos[k][j][i] = max(max(dz4+con43*ru1,dz5+c1c5*ru1), max(dzmax+ru1,dz1));
      }

      for (k = 1; k <= nz2; k++) {
        lhs[0][k][j][i] =  0.0;
        lhs[1][k][j][i] = -dttz2 * ws[k-1][j][i] - dttz1 * rhos[k-1][j][i];
        lhs[2][k][j][i] =  1.0 + c2dttz1 * rhos[k][j][i];
        lhs[3][k][j][i] =  dttz2 * ws[k+1][j][i] - dttz1 * rhos[k+1][j][i];
        lhs[4][k][j][i] =  0.0;
      }

      //-----------------------------------------------------------------
      // add fourth order dissipation
      //-----------------------------------------------------------------
      k = 1;
      lhs[2][k][j][i] = lhs[2][k][j][i] + comz5;
      lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;
      lhs[4][k][j][i] = lhs[4][k][j][i] + comz1;

      lhs[1][k+1][j][i] = lhs[1][k+1][j][i] - comz4;
      lhs[2][k+1][j][i] = lhs[2][k+1][j][i] + comz6;
      lhs[3][k+1][j][i] = lhs[3][k+1][j][i] - comz4;
      lhs[4][k+1][j][i] = lhs[4][k+1][j][i] + comz1;

      for (k = 3; k <= gp04; k++) {
        lhs[0][k][j][i] = lhs[0][k][j][i] + comz1;
        lhs[1][k][j][i] = lhs[1][k][j][i] - comz4;
        lhs[2][k][j][i] = lhs[2][k][j][i] + comz6;
        lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;
        lhs[4][k][j][i] = lhs[4][k][j][i] + comz1;
      }

      k = gp03;
      lhs[0][k][j][i] = lhs[0][k][j][i] + comz1;
      lhs[1][k][j][i] = lhs[1][k][j][i] - comz4;
      lhs[2][k][j][i] = lhs[2][k][j][i] + comz6;
      lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;

      lhs[0][k+1][j][i] = lhs[0][k+1][j][i] + comz1;
      lhs[1][k+1][j][i] = lhs[1][k+1][j][i] - comz4;
      lhs[2][k+1][j][i] = lhs[2][k+1][j][i] + comz5;

      //-----------------------------------------------------------------
      // subsequently, fill the other factors (u+c), (u-c) by adding to
      // the first
      //-----------------------------------------------------------------
      for (k = 1; k <= nz2; k++) {
        lhsp[0][k][j][i] = lhs[0][k][j][i];
        lhsp[1][k][j][i] = lhs[1][k][j][i] - dttz2 * speed[k-1][j][i];
        lhsp[2][k][j][i] = lhs[2][k][j][i];
        lhsp[3][k][j][i] = lhs[3][k][j][i] + dttz2 * speed[k+1][j][i];
        lhsp[4][k][j][i] = lhs[4][k][j][i];
        lhsm[0][k][j][i] = lhs[0][k][j][i];
        lhsm[1][k][j][i] = lhs[1][k][j][i] + dttz2 * speed[k-1][j][i];
        lhsm[2][k][j][i] = lhs[2][k][j][i];
        lhsm[3][k][j][i] = lhs[3][k][j][i] - dttz2 * speed[k+1][j][i];
        lhsm[4][k][j][i] = lhs[4][k][j][i];
      }

      //-----------------------------------------------------------------
      // FORWARD ELIMINATION
      //-----------------------------------------------------------------
      for (k = 0; k <= gp03; k++) {
        k1 = k + 1;
        k2 = k + 2;
        fac1 = 1.0/lhs[2][k][j][i];
        lhs[3][k][j][i] = fac1*lhs[3][k][j][i];
        lhs[4][k][j][i] = fac1*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k][j][i] = fac1*rhs[m][k][j][i];
        }
        lhs[2][k1][j][i] = lhs[2][k1][j][i] - lhs[1][k1][j][i]*lhs[3][k][j][i];
        lhs[3][k1][j][i] = lhs[3][k1][j][i] - lhs[1][k1][j][i]*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k1][j][i] = rhs[m][k1][j][i] - lhs[1][k1][j][i]*rhs[m][k][j][i];
        }
        lhs[1][k2][j][i] = lhs[1][k2][j][i] - lhs[0][k2][j][i]*lhs[3][k][j][i];
        lhs[2][k2][j][i] = lhs[2][k2][j][i] - lhs[0][k2][j][i]*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k2][j][i] = rhs[m][k2][j][i] - lhs[0][k2][j][i]*rhs[m][k][j][i];
        }
      }

      //-----------------------------------------------------------------
      // The last two rows in this grid block are a bit different,
      // since they do not have two more rows available for the
      // elimination of off-diagonal entries
      //-----------------------------------------------------------------
      k  = gp02;
      k1 = gp01;
      fac1 = 1.0/lhs[2][k][j][i];
      lhs[3][k][j][i] = fac1*lhs[3][k][j][i];
      lhs[4][k][j][i] = fac1*lhs[4][k][j][i];
      for (m = 0; m < 3; m++) {
        rhs[m][k][j][i] = fac1*rhs[m][k][j][i];
      }
      lhs[2][k1][j][i] = lhs[2][k1][j][i] - lhs[1][k1][j][i]*lhs[3][k][j][i];
      lhs[3][k1][j][i] = lhs[3][k1][j][i] - lhs[1][k1][j][i]*lhs[4][k][j][i];
      for (m = 0; m < 3; m++) {
        rhs[m][k1][j][i] = rhs[m][k1][j][i] - lhs[1][k1][j][i]*rhs[m][k][j][i];
      }

      //-----------------------------------------------------------------
      // scale the last row immediately
      //-----------------------------------------------------------------
      fac2 = 1.0/lhs[2][k1][j][i];
      for (m = 0; m < 3; m++) {
        rhs[m][k1][j][i] = fac2*rhs[m][k1][j][i];
      }

      //-----------------------------------------------------------------
      // do the u+c and the u-c factors
      //-----------------------------------------------------------------
      for (k = 0; k <= gp03; k++) {
        k1 = k + 1;
        k2 = k + 2;

        m = 3;
        fac1 = 1.0/lhsp[2][k][j][i];
        lhsp[3][k][j][i]    = fac1*lhsp[3][k][j][i];
        lhsp[4][k][j][i]    = fac1*lhsp[4][k][j][i];
        rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
        lhsp[2][k1][j][i]   = lhsp[2][k1][j][i] - lhsp[1][k1][j][i]*lhsp[3][k][j][i];
        lhsp[3][k1][j][i]   = lhsp[3][k1][j][i] - lhsp[1][k1][j][i]*lhsp[4][k][j][i];
        rhs[m][k1][j][i]    = rhs[m][k1][j][i] - lhsp[1][k1][j][i]*rhs[m][k][j][i];
        lhsp[1][k2][j][i]   = lhsp[1][k2][j][i] - lhsp[0][k2][j][i]*lhsp[3][k][j][i];
        lhsp[2][k2][j][i]   = lhsp[2][k2][j][i] - lhsp[0][k2][j][i]*lhsp[4][k][j][i];
        rhs[m][k2][j][i]    = rhs[m][k2][j][i] - lhsp[0][k2][j][i]*rhs[m][k][j][i];

        m = 4;
        fac1 = 1.0/lhsm[2][k][j][i];
        lhsm[3][k][j][i]    = fac1*lhsm[3][k][j][i];
        lhsm[4][k][j][i]    = fac1*lhsm[4][k][j][i];
        rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
        lhsm[2][k1][j][i]   = lhsm[2][k1][j][i] - lhsm[1][k1][j][i]*lhsm[3][k][j][i];
        lhsm[3][k1][j][i]   = lhsm[3][k1][j][i] - lhsm[1][k1][j][i]*lhsm[4][k][j][i];
        rhs[m][k1][j][i]    = rhs[m][k1][j][i] - lhsm[1][k1][j][i]*rhs[m][k][j][i];
        lhsm[1][k2][j][i]   = lhsm[1][k2][j][i] - lhsm[0][k2][j][i]*lhsm[3][k][j][i];
        lhsm[2][k2][j][i]   = lhsm[2][k2][j][i] - lhsm[0][k2][j][i]*lhsm[4][k][j][i];
        rhs[m][k2][j][i]    = rhs[m][k2][j][i] - lhsm[0][k2][j][i]*rhs[m][k][j][i];
      }

      //-----------------------------------------------------------------
      // And again the last two rows separately
      //-----------------------------------------------------------------
      k  = gp02;
      k1 = gp01;

      m = 3;
      fac1 = 1.0/lhsp[2][k][j][i];
      lhsp[3][k][j][i]    = fac1*lhsp[3][k][j][i];
      lhsp[4][k][j][i]    = fac1*lhsp[4][k][j][i];
      rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
      lhsp[2][k1][j][i]   = lhsp[2][k1][j][i] - lhsp[1][k1][j][i]*lhsp[3][k][j][i];
      lhsp[3][k1][j][i]   = lhsp[3][k1][j][i] - lhsp[1][k1][j][i]*lhsp[4][k][j][i];
      rhs[m][k1][j][i]    = rhs[m][k1][j][i] - lhsp[1][k1][j][i]*rhs[m][k][j][i];

      m = 4;
      fac1 = 1.0/lhsm[2][k][j][i];
      lhsm[3][k][j][i]    = fac1*lhsm[3][k][j][i];
      lhsm[4][k][j][i]    = fac1*lhsm[4][k][j][i];
      rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
      lhsm[2][k1][j][i]   = lhsm[2][k1][j][i] - lhsm[1][k1][j][i]*lhsm[3][k][j][i];
      lhsm[3][k1][j][i]   = lhsm[3][k1][j][i] - lhsm[1][k1][j][i]*lhsm[4][k][j][i];
      rhs[m][k1][j][i]    = rhs[m][k1][j][i] - lhsm[1][k1][j][i]*rhs[m][k][j][i];

      //-----------------------------------------------------------------
      // Scale the last row immediately
      //-----------------------------------------------------------------
      rhs[3][k1][j][i] = rhs[3][k1][j][i]/lhsp[2][k1][j][i];
      rhs[4][k1][j][i] = rhs[4][k1][j][i]/lhsm[2][k1][j][i];

      //-----------------------------------------------------------------
      // BACKSUBSTITUTION
      //-----------------------------------------------------------------
      k  = gp02;
      k1 = gp01;
      for (m = 0; m < 3; m++) {
        rhs[m][k][j][i] = rhs[m][k][j][i] - lhs[3][k][j][i]*rhs[m][k1][j][i];
      }
      rhs[3][k][j][i] = rhs[3][k][j][i] - lhsp[3][k][j][i]*rhs[3][k1][j][i];
      rhs[4][k][j][i] = rhs[4][k][j][i] - lhsm[3][k][j][i]*rhs[4][k1][j][i];

      //-----------------------------------------------------------------
      // The first three factors
      //-----------------------------------------------------------------
      for (k = gp03; k >= 0; k--) {
        k1 = k + 1;
        k2 = k + 2;
        for (m = 0; m < 3; m++) {
          rhs[m][k][j][i] = rhs[m][k][j][i] -
                            lhs[3][k][j][i]*rhs[m][k1][j][i] -
                            lhs[4][k][j][i]*rhs[m][k2][j][i];
        }

        //---------------------------------------------------------------
        // And the remaining two
        //---------------------------------------------------------------
        rhs[3][k][j][i] = rhs[3][k][j][i] -
                          lhsp[3][k][j][i]*rhs[3][k1][j][i] -
                          lhsp[4][k][j][i]*rhs[3][k2][j][i];
        rhs[4][k][j][i] = rhs[4][k][j][i] -
                          lhsm[3][k][j][i]*rhs[4][k1][j][i] -
                          lhsm[4][k][j][i]*rhs[4][k2][j][i];
      }
    }
  }
  if (timeron) timer_stop(t_zsolve);

  //---------------------------------------------------------------------
  // Do the block-diagonal inversion
  //---------------------------------------------------------------------
  tzetar();
}
