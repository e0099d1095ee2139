#include "header.h"
#include "timers.h"

//---------------------------------------------------------------------
// x_solve solves the pentadiagonal systems of the x factor along the
// lines of i: one line per (k, j) thread, in order along i.  The three
// systems (u, u+c, u-c) share their matrices for the first three
// components.  Then ninvr.
//---------------------------------------------------------------------
void x_solve()
{
  int i, j, k, i1, i2, m;
  int gp01, gp02, gp03, gp04;
  double ru1, fac1, fac2;

  if (timeron) timer_start(t_xsolve);

  gp01 = grid_points[0]-1;
  gp02 = grid_points[0]-2;
  gp03 = grid_points[0]-3;
  gp04 = grid_points[0]-4;

#pragma acc parallel loop gang num_gangs(nz2) num_workers(8) vector_length(32) \
        present(rho_i, us, speed, rhs, lhs, lhsp, lhsm, rhon)
  for (k = 1; k <= nz2; k++) {
    #pragma acc loop worker vector
    for (j = 1; j <= ny2; j++) {
      //-----------------------------------------------------------------
      // the boundary rows are the identity
      //-----------------------------------------------------------------
      for (m = 0; m < 5; m++) {
        lhs [m][k][j][0] = 0.0;
        lhsp[m][k][j][0] = 0.0;
        lhsm[m][k][j][0] = 0.0;
        lhs [m][k][j][nx2+1] = 0.0;
        lhsp[m][k][j][nx2+1] = 0.0;
        lhsm[m][k][j][nx2+1] = 0.0;
      }
      lhs [2][k][j][0] = 1.0;
      lhsp[2][k][j][0] = 1.0;
      lhsm[2][k][j][0] = 1.0;
      lhs [2][k][j][nx2+1] = 1.0;
      lhsp[2][k][j][nx2+1] = 1.0;
      lhsm[2][k][j][nx2+1] = 1.0;

      //-----------------------------------------------------------------
      // first fill the lhs for the u-eigenvalue
      //-----------------------------------------------------------------
      for (i = 0; i <= gp01; i++) {
        ru1 = c3c4*rho_i[k][j][i];
        rhon[k][j][i] = max(max(dx2+con43*ru1,dx5+c1c5*ru1), max(dxmax+ru1,dx1));
      }

      for (i = 1; i <= nx2; i++) {
        lhs[0][k][j][i] =  0.0;
        lhs[1][k][j][i] = -dttx2 * us[k][j][i-1] - dttx1 * rhon[k][j][i-1];
        lhs[2][k][j][i] =  1.0 + c2dttx1 * rhon[k][j][i];
        lhs[3][k][j][i] =  dttx2 * us[k][j][i+1] - dttx1 * rhon[k][j][i+1];
        lhs[4][k][j][i] =  0.0;
      }

      //-----------------------------------------------------------------
      // add fourth order dissipation
      //-----------------------------------------------------------------
      i = 1;
      lhs[2][k][j][i] = lhs[2][k][j][i] + comz5;
      lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;
      lhs[4][k][j][i] = lhs[4][k][j][i] + comz1;

      lhs[1][k][j][i+1] = lhs[1][k][j][i+1] - comz4;
      lhs[2][k][j][i+1] = lhs[2][k][j][i+1] + comz6;
      lhs[3][k][j][i+1] = lhs[3][k][j][i+1] - comz4;
      lhs[4][k][j][i+1] = lhs[4][k][j][i+1] + comz1;

      for (i = 3; i <= gp04; i++) {
        lhs[0][k][j][i] = lhs[0][k][j][i] + comz1;
        lhs[1][k][j][i] = lhs[1][k][j][i] - comz4;
        lhs[2][k][j][i] = lhs[2][k][j][i] + comz6;
        lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;
        lhs[4][k][j][i] = lhs[4][k][j][i] + comz1;
      }

      i = gp03;
      lhs[0][k][j][i] = lhs[0][k][j][i] + comz1;
      lhs[1][k][j][i] = lhs[1][k][j][i] - comz4;
      lhs[2][k][j][i] = lhs[2][k][j][i] + comz6;
      lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;

      lhs[0][k][j][i+1] = lhs[0][k][j][i+1] + comz1;
      lhs[1][k][j][i+1] = lhs[1][k][j][i+1] - comz4;
      lhs[2][k][j][i+1] = lhs[2][k][j][i+1] + comz5;

      //-----------------------------------------------------------------
      // subsequently, fill the other factors (u+c), (u-c) by adding to
      // the first
      //-----------------------------------------------------------------
      for (i = 1; i <= nx2; i++) {
        lhsp[0][k][j][i] = lhs[0][k][j][i];
        lhsp[1][k][j][i] = lhs[1][k][j][i] - dttx2 * speed[k][j][i-1];
        lhsp[2][k][j][i] = lhs[2][k][j][i];
        lhsp[3][k][j][i] = lhs[3][k][j][i] + dttx2 * speed[k][j][i+1];
        lhsp[4][k][j][i] = lhs[4][k][j][i];
        lhsm[0][k][j][i] = lhs[0][k][j][i];
        lhsm[1][k][j][i] = lhs[1][k][j][i] + dttx2 * speed[k][j][i-1];
        lhsm[2][k][j][i] = lhs[2][k][j][i];
        lhsm[3][k][j][i] = lhs[3][k][j][i] - dttx2 * speed[k][j][i+1];
        lhsm[4][k][j][i] = lhs[4][k][j][i];
      }

      //-----------------------------------------------------------------
      // FORWARD ELIMINATION
      //-----------------------------------------------------------------
      for (i = 0; i <= gp03; i++) {
        i1 = i + 1;
        i2 = i + 2;
        fac1 = 1.0/lhs[2][k][j][i];
        lhs[3][k][j][i] = fac1*lhs[3][k][j][i];
        lhs[4][k][j][i] = fac1*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k][j][i] = fac1*rhs[m][k][j][i];
        }
        lhs[2][k][j][i1] = lhs[2][k][j][i1] - lhs[1][k][j][i1]*lhs[3][k][j][i];
        lhs[3][k][j][i1] = lhs[3][k][j][i1] - lhs[1][k][j][i1]*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k][j][i1] = rhs[m][k][j][i1] - lhs[1][k][j][i1]*rhs[m][k][j][i];
        }
        lhs[1][k][j][i2] = lhs[1][k][j][i2] - lhs[0][k][j][i2]*lhs[3][k][j][i];
        lhs[2][k][j][i2] = lhs[2][k][j][i2] - lhs[0][k][j][i2]*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k][j][i2] = rhs[m][k][j][i2] - lhs[0][k][j][i2]*rhs[m][k][j][i];
        }
      }

      //-----------------------------------------------------------------
      // The last two rows in this grid block are a bit different,
      // since they do not have two more rows available for the
      // elimination of off-diagonal entries
      //-----------------------------------------------------------------
      i  = gp02;
      i1 = gp01;
      fac1 = 1.0/lhs[2][k][j][i];
      lhs[3][k][j][i] = fac1*lhs[3][k][j][i];
      lhs[4][k][j][i] = fac1*lhs[4][k][j][i];
      for (m = 0; m < 3; m++) {
        rhs[m][k][j][i] = fac1*rhs[m][k][j][i];
      }
      lhs[2][k][j][i1] = lhs[2][k][j][i1] - lhs[1][k][j][i1]*lhs[3][k][j][i];
      lhs[3][k][j][i1] = lhs[3][k][j][i1] - lhs[1][k][j][i1]*lhs[4][k][j][i];
      for (m = 0; m < 3; m++) {
        rhs[m][k][j][i1] = rhs[m][k][j][i1] - lhs[1][k][j][i1]*rhs[m][k][j][i];
      }

      //-----------------------------------------------------------------
      // scale the last row immediately
      //-----------------------------------------------------------------
      fac2 = 1.0/lhs[2][k][j][i1];
      for (m = 0; m < 3; m++) {
        rhs[m][k][j][i1] = fac2*rhs[m][k][j][i1];
      }

      //-----------------------------------------------------------------
      // do the u+c and the u-c factors
      //-----------------------------------------------------------------
      for (i = 0; i <= gp03; i++) {
        i1 = i + 1;
        i2 = i + 2;

        m = 3;
        fac1 = 1.0/lhsp[2][k][j][i];
        lhsp[3][k][j][i]    = fac1*lhsp[3][k][j][i];
        lhsp[4][k][j][i]    = fac1*lhsp[4][k][j][i];
        rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
        lhsp[2][k][j][i1]   = lhsp[2][k][j][i1] - lhsp[1][k][j][i1]*lhsp[3][k][j][i];
        lhsp[3][k][j][i1]   = lhsp[3][k][j][i1] - lhsp[1][k][j][i1]*lhsp[4][k][j][i];
        rhs[m][k][j][i1]    = rhs[m][k][j][i1] - lhsp[1][k][j][i1]*rhs[m][k][j][i];
        lhsp[1][k][j][i2]   = lhsp[1][k][j][i2] - lhsp[0][k][j][i2]*lhsp[3][k][j][i];
        lhsp[2][k][j][i2]   = lhsp[2][k][j][i2] - lhsp[0][k][j][i2]*lhsp[4][k][j][i];
        rhs[m][k][j][i2]    = rhs[m][k][j][i2] - lhsp[0][k][j][i2]*rhs[m][k][j][i];

        m = 4;
        fac1 = 1.0/lhsm[2][k][j][i];
        lhsm[3][k][j][i]    = fac1*lhsm[3][k][j][i];
        lhsm[4][k][j][i]    = fac1*lhsm[4][k][j][i];
        rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
        lhsm[2][k][j][i1]   = lhsm[2][k][j][i1] - lhsm[1][k][j][i1]*lhsm[3][k][j][i];
        lhsm[3][k][j][i1]   = lhsm[3][k][j][i1] - lhsm[1][k][j][i1]*lhsm[4][k][j][i];
        rhs[m][k][j][i1]    = rhs[m][k][j][i1] - lhsm[1][k][j][i1]*rhs[m][k][j][i];
        lhsm[1][k][j][i2]   = lhsm[1][k][j][i2] - lhsm[0][k][j][i2]*lhsm[3][k][j][i];
        lhsm[2][k][j][i2]   = lhsm[2][k][j][i2] - lhsm[0][k][j][i2]*lhsm[4][k][j][i];
        rhs[m][k][j][i2]    = rhs[m][k][j][i2] - lhsm[0][k][j][i2]*rhs[m][k][j][i];
      }

      //-----------------------------------------------------------------
      // And again the last two rows separately
      //-----------------------------------------------------------------
      i  = gp02;
      i1 = gp01;

      m = 3;
      fac1 = 1.0/lhsp[2][k][j][i];
      lhsp[3][k][j][i]    = fac1*lhsp[3][k][j][i];
      lhsp[4][k][j][i]    = fac1*lhsp[4][k][j][i];
      rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
      lhsp[2][k][j][i1]   = lhsp[2][k][j][i1] - lhsp[1][k][j][i1]*lhsp[3][k][j][i];
      lhsp[3][k][j][i1]   = lhsp[3][k][j][i1] - lhsp[1][k][j][i1]*lhsp[4][k][j][i];
      rhs[m][k][j][i1]    = rhs[m][k][j][i1] - lhsp[1][k][j][i1]*rhs[m][k][j][i];

      m = 4;
      fac1 = 1.0/lhsm[2][k][j][i];
      lhsm[3][k][j][i]    = fac1*lhsm[3][k][j][i];
      lhsm[4][k][j][i]    = fac1*lhsm[4][k][j][i];
      rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
      lhsm[2][k][j][i1]   = lhsm[2][k][j][i1] - lhsm[1][k][j][i1]*lhsm[3][k][j][i];
      lhsm[3][k][j][i1]   = lhsm[3][k][j][i1] - lhsm[1][k][j][i1]*lhsm[4][k][j][i];
      rhs[m][k][j][i1]    = rhs[m][k][j][i1] - lhsm[1][k][j][i1]*rhs[m][k][j][i];

      //-----------------------------------------------------------------
      // Scale the last row immediately
      //-----------------------------------------------------------------
      rhs[3][k][j][i1] = rhs[3][k][j][i1]/lhsp[2][k][j][i1];
      rhs[4][k][j][i1] = rhs[4][k][j][i1]/lhsm[2][k][j][i1];

      //-----------------------------------------------------------------
      // BACKSUBSTITUTION
      //-----------------------------------------------------------------
      i  = gp02;
      i1 = gp01;
      for (m = 0; m < 3; m++) {
        rhs[m][k][j][i] = rhs[m][k][j][i] - lhs[3][k][j][i]*rhs[m][k][j][i1];
      }
      rhs[3][k][j][i] = rhs[3][k][j][i] - lhsp[3][k][j][i]*rhs[3][k][j][i1];
      rhs[4][k][j][i] = rhs[4][k][j][i] - lhsm[3][k][j][i]*rhs[4][k][j][i1];

      //-----------------------------------------------------------------
      // The first three factors
      //-----------------------------------------------------------------
      for (i = gp03; i >= 0; i--) {
        i1 = i + 1;
        i2 = i + 2;
        for (m = 0; m < 3; m++) {
          rhs[m][k][j][i] = rhs[m][k][j][i] -
                            lhs[3][k][j][i]*rhs[m][k][j][i1] -
                            lhs[4][k][j][i]*rhs[m][k][j][i2];
        }

        //---------------------------------------------------------------
        // And the remaining two
        //---------------------------------------------------------------
        rhs[3][k][j][i] = rhs[3][k][j][i] -
                          lhsp[3][k][j][i]*rhs[3][k][j][i1] -
                          lhsp[4][k][j][i]*rhs[3][k][j][i2];
        rhs[4][k][j][i] = rhs[4][k][j][i] -
                          lhsm[3][k][j][i]*rhs[4][k][j][i1] -
                          lhsm[4][k][j][i]*rhs[4][k][j][i2];
      }
    }
  }
  if (timeron) timer_stop(t_xsolve);

  //---------------------------------------------------------------------
  // Do the block-diagonal inversion
  //---------------------------------------------------------------------
  ninvr();
}
