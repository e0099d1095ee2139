#include "header.h"
#include "timers.h"

//---------------------------------------------------------------------
// y_solve solves the pentadiagonal systems of the y factor along the
// lines of j: one line per (k, i) thread, in order along j.  The three
// systems (u, u+c, u-c) share their matrices for the first three
// components.  Then pinvr.
//---------------------------------------------------------------------
void y_solve()
{
  int i, j, k, j1, j2, m;
  int gp01, gp02, gp03, gp04;
  double ru1, fac1, fac2;

  if (timeron) timer_start(t_ysolve);

  gp01 = grid_points[1]-1;
  gp02 = grid_points[1]-2;
  gp03 = grid_points[1]-3;
  gp04 = grid_points[1]-4;

#pragma acc parallel loop gang num_gangs(nz2) num_workers(8) vector_length(32) \
        present(rho_i, vs, speed, rhs, lhs, lhsp, lhsm, rhoq)
  for (k = 1; k <= nz2; k++) {
    #pragma acc loop worker vector
    for (i = 1; i <= nx2; i++) {
      //-----------------------------------------------------------------
      // the boundary rows are the identity
      //-----------------------------------------------------------------
      for (m = 0; m < 5; m++) {
        lhs [m][k][0][i] = 0.0;
        lhsp[m][k][0][i] = 0.0;
        lhsm[m][k][0][i] = 0.0;
        lhs [m][k][ny2+1][i] = 0.0;
        lhsp[m][k][ny2+1][i] = 0.0;
        lhsm[m][k][ny2+1][i] = 0.0;
      }
      lhs [2][k][0][i] = 1.0;
      lhsp[2][k][0][i] = 1.0;
      lhsm[2][k][0][i] = 1.0;
      lhs [2][k][ny2+1][i] = 1.0;
      lhsp[2][k][ny2+1][i] = 1.0;
      lhsm[2][k][ny2+1][i] = 1.0;

      //-----------------------------------------------------------------
      // first fill the lhs for the u-eigenvalue
      //-----------------------------------------------------------------
      for (j = 0; j <= gp01; j++) {
        ru1 = c3c4*rho_i[k][j][i];
        rhoq[k][j][i] = max(max(dy3+con43*ru1,dy5+c1c5*ru1), max(dymax+ru1,dy1));
      }

      for (j = 1; j <= ny2; j++) {
        lhs[0][k][j][i] =  0.0;
        lhs[1][k][j][i] = -dtty2 * vs[k][j-1][i] - dtty1 * rhoq[k][j-1][i];
        lhs[2][k][j][i] =  1.0 + c2dtty1 * rhoq[k][j][i];
        lhs[3][k][j][i] =  dtty2 * vs[k][j+1][i] - dtty1 * rhoq[k][j+1][i];
        lhs[4][k][j][i] =  0.0;
      }

      //-----------------------------------------------------------------
      // add fourth order dissipation
      //-----------------------------------------------------------------
      j = 1;
      lhs[2][k][j][i] = lhs[2][k][j][i] + comz5;
      lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;
      lhs[4][k][j][i] = lhs[4][k][j][i] + comz1;

      lhs[1][k][j+1][i] = lhs[1][k][j+1][i] - comz4;
      lhs[2][k][j+1][i] = lhs[2][k][j+1][i] + comz6;
      lhs[3][k][j+1][i] = lhs[3][k][j+1][i] - comz4;
      lhs[4][k][j+1][i] = lhs[4][k][j+1][i] + comz1;

      for (j = 3; j <= gp04; j++) {
        lhs[0][k][j][i] = lhs[0][k][j][i] + comz1;
        lhs[1][k][j][i] = lhs[1][k][j][i] - comz4;
        lhs[2][k][j][i] = lhs[2][k][j][i] + comz6;
        lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;
        lhs[4][k][j][i] = lhs[4][k][j][i] + comz1;
      }

      j = gp03;
      lhs[0][k][j][i] = lhs[0][k][j][i] + comz1;
      lhs[1][k][j][i] = lhs[1][k][j][i] - comz4;
      lhs[2][k][j][i] = lhs[2][k][j][i] + comz6;
      lhs[3][k][j][i] = lhs[3][k][j][i] - comz4;

      lhs[0][k][j+1][i] = lhs[0][k][j+1][i] + comz1;
      lhs[1][k][j+1][i] = lhs[1][k][j+1][i] - comz4;
      lhs[2][k][j+1][i] = lhs[2][k][j+1][i] + comz5;

      //-----------------------------------------------------------------
      // subsequently, fill the other factors (u+c), (u-c) by adding to
      // the first
      //-----------------------------------------------------------------
      for (j = 1; j <= ny2; j++) {
        lhsp[0][k][j][i] = lhs[0][k][j][i];
        lhsp[1][k][j][i] = lhs[1][k][j][i] - dtty2 * speed[k][j-1][i];
        lhsp[2][k][j][i] = lhs[2][k][j][i];
        lhsp[3][k][j][i] = lhs[3][k][j][i] + dtty2 * speed[k][j+1][i];
        lhsp[4][k][j][i] = lhs[4][k][j][i];
        lhsm[0][k][j][i] = lhs[0][k][j][i];
        lhsm[1][k][j][i] = lhs[1][k][j][i] + dtty2 * speed[k][j-1][i];
        lhsm[2][k][j][i] = lhs[2][k][j][i];
        lhsm[3][k][j][i] = lhs[3][k][j][i] - dtty2 * speed[k][j+1][i];
        lhsm[4][k][j][i] = lhs[4][k][j][i];
      }

      //-----------------------------------------------------------------
      // FORWARD ELIMINATION
      //-----------------------------------------------------------------
      for (j = 0; j <= gp03; j++) {
        j1 = j + 1;
        j2 = j + 2;
        fac1 = 1.0/lhs[2][k][j][i];
        lhs[3][k][j][i] = fac1*lhs[3][k][j][i];
        lhs[4][k][j][i] = fac1*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k][j][i] = fac1*rhs[m][k][j][i];
        }
        lhs[2][k][j1][i] = lhs[2][k][j1][i] - lhs[1][k][j1][i]*lhs[3][k][j][i];
        lhs[3][k][j1][i] = lhs[3][k][j1][i] - lhs[1][k][j1][i]*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k][j1][i] = rhs[m][k][j1][i] - lhs[1][k][j1][i]*rhs[m][k][j][i];
        }
        lhs[1][k][j2][i] = lhs[1][k][j2][i] - lhs[0][k][j2][i]*lhs[3][k][j][i];
        lhs[2][k][j2][i] = lhs[2][k][j2][i] - lhs[0][k][j2][i]*lhs[4][k][j][i];
        for (m = 0; m < 3; m++) {
          rhs[m][k][j2][i] = rhs[m][k][j2][i] - lhs[0][k][j2][i]*rhs[m][k][j][i];
        }
      }

      //-----------------------------------------------------------------
      // The last two rows in this grid block are a bit different,
      // since they do not have two more rows available for the
      // elimination of off-diagonal entries
      //-----------------------------------------------------------------
      j  = gp02;
      j1 = gp01;
      fac1 = 1.0/lhs[2][k][j][i];
      lhs[3][k][j][i] = fac1*lhs[3][k][j][i];
      lhs[4][k][j][i] = fac1*lhs[4][k][j][i];
      for (m = 0; m < 3; m++) {
        rhs[m][k][j][i] = fac1*rhs[m][k][j][i];
      }
      lhs[2][k][j1][i] = lhs[2][k][j1][i] - lhs[1][k][j1][i]*lhs[3][k][j][i];
      lhs[3][k][j1][i] = lhs[3][k][j1][i] - lhs[1][k][j1][i]*lhs[4][k][j][i];
      for (m = 0; m < 3; m++) {
        rhs[m][k][j1][i] = rhs[m][k][j1][i] - lhs[1][k][j1][i]*rhs[m][k][j][i];
      }

      //-----------------------------------------------------------------
      // scale the last row immediately
      //-----------------------------------------------------------------
      fac2 = 1.0/lhs[2][k][j1][i];
      for (m = 0; m < 3; m++) {
        rhs[m][k][j1][i] = fac2*rhs[m][k][j1][i];
      }

      //-----------------------------------------------------------------
      // do the u+c and the u-c factors
      //-----------------------------------------------------------------
      for (j = 0; j <= gp03; j++) {
        j1 = j + 1;
        j2 = j + 2;

        m = 3;
        fac1 = 1.0/lhsp[2][k][j][i];
        lhsp[3][k][j][i]    = fac1*lhsp[3][k][j][i];
        lhsp[4][k][j][i]    = fac1*lhsp[4][k][j][i];
        rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
        lhsp[2][k][j1][i]   = lhsp[2][k][j1][i] - lhsp[1][k][j1][i]*lhsp[3][k][j][i];
        lhsp[3][k][j1][i]   = lhsp[3][k][j1][i] - lhsp[1][k][j1][i]*lhsp[4][k][j][i];
        rhs[m][k][j1][i]    = rhs[m][k][j1][i] - lhsp[1][k][j1][i]*rhs[m][k][j][i];
        lhsp[1][k][j2][i]   = lhsp[1][k][j2][i] - lhsp[0][k][j2][i]*lhsp[3][k][j][i];
        lhsp[2][k][j2][i]   = lhsp[2][k][j2][i] - lhsp[0][k][j2][i]*lhsp[4][k][j][i];
        rhs[m][k][j2][i]    = rhs[m][k][j2][i] - lhsp[0][k][j2][i]*rhs[m][k][j][i];

        m = 4;
        fac1 = 1.0/lhsm[2][k][j][i];
        lhsm[3][k][j][i]    = fac1*lhsm[3][k][j][i];
        lhsm[4][k][j][i]    = fac1*lhsm[4][k][j][i];
        rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
        lhsm[2][k][j1][i]   = lhsm[2][k][j1][i] - lhsm[1][k][j1][i]*lhsm[3][k][j][i];
        lhsm[3][k][j1][i]   = lhsm[3][k][j1][i] - lhsm[1][k][j1][i]*lhsm[4][k][j][i];
        rhs[m][k][j1][i]    = rhs[m][k][j1][i] - lhsm[1][k][j1][i]*rhs[m][k][j][i];
        lhsm[1][k][j2][i]   = lhsm[1][k][j2][i] - lhsm[0][k][j2][i]*lhsm[3][k][j][i];
        lhsm[2][k][j2][i]   = lhsm[2][k][j2][i] - lhsm[0][k][j2][i]*lhsm[4][k][j][i];
        rhs[m][k][j2][i]    = rhs[m][k][j2][i] - lhsm[0][k][j2][i]*rhs[m][k][j][i];
      }

      //-----------------------------------------------------------------
      // And again the last two rows separately
      //-----------------------------------------------------------------
      j  = gp02;
      j1 = gp01;

      m = 3;
      fac1 = 1.0/lhsp[2][k][j][i];
      lhsp[3][k][j][i]    = fac1*lhsp[3][k][j][i];
      lhsp[4][k][j][i]    = fac1*lhsp[4][k][j][i];
      rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
      lhsp[2][k][j1][i]   = lhsp[2][k][j1][i] - lhsp[1][k][j1][i]*lhsp[3][k][j][i];
      lhsp[3][k][j1][i]   = lhsp[3][k][j1][i] - lhsp[1][k][j1][i]*lhsp[4][k][j][i];
      rhs[m][k][j1][i]    = rhs[m][k][j1][i] - lhsp[1][k][j1][i]*rhs[m][k][j][i];

      m = 4;
      fac1 = 1.0/lhsm[2][k][j][i];
      lhsm[3][k][j][i]    = fac1*lhsm[3][k][j][i];
      lhsm[4][k][j][i]    = fac1*lhsm[4][k][j][i];
      rhs[m][k][j][i]     = fac1*rhs[m][k][j][i];
      lhsm[2][k][j1][i]   = lhsm[2][k][j1][i] - lhsm[1][k][j1][i]*lhsm[3][k][j][i];
      lhsm[3][k][j1][i]   = lhsm[3][k][j1][i] - lhsm[1][k][j1][i]*lhsm[4][k][j][i];
      rhs[m][k][j1][i]    = rhs[m][k][j1][i] - lhsm[1][k][j1][i]*rhs[m][k][j][i];

      //-----------------------------------------------------------------
      // Scale the last row immediately
      //-----------------------------------------------------------------
      rhs[3][k][j1][i] = rhs[3][k][j1][i]/lhsp[2][k][j1][i];
      rhs[4][k][j1][i] = rhs[4][k][j1][i]/lhsm[2][k][j1][i];

      //-----------------------------------------------------------------
      // BACKSUBSTITUTION
      //-----------------------------------------------------------------
      j  = gp02;
      j1 = gp01;
      for (m = 0; m < 3; m++) {
        rhs[m][k][j][i] = rhs[m][k][j][i] - lhs[3][k][j][i]*rhs[m][k][j1][i];
      }
      rhs[3][k][j][i] = rhs[3][k][j][i] - lhsp[3][k][j][i]*rhs[3][k][j1][i];
      rhs[4][k][j][i] = rhs[4][k][j][i] - lhsm[3][k][j][i]*rhs[4][k][j1][i];

      //-----------------------------------------------------------------
      // The first three factors
      //-----------------------------------------------------------------
      for (j = gp03; j >= 0; j--) {
        j1 = j + 1;
        j2 = j + 2;
        for (m = 0; m < 3; m++) {
          rhs[m][k][j][i] = rhs[m][k][j][i] -
                            lhs[3][k][j][i]*rhs[m][k][j1][i] -
                            lhs[4][k][j][i]*rhs[m][k][j2][i];
        }

        //---------------------------------------------------------------
        // And the remaining two
        //---------------------------------------------------------------
        rhs[3][k][j][i] = rhs[3][k][j][i] -
                          lhsp[3][k][j][i]*rhs[3][k][j1][i] -
                          lhsp[4][k][j][i]*rhs[3][k][j2][i];
        rhs[4][k][j][i] = rhs[4][k][j][i] -
                          lhsm[3][k][j][i]*rhs[4][k][j1][i] -
                          lhsm[4][k][j][i]*rhs[4][k][j2][i];
      }
    }
  }
  if (timeron) timer_stop(t_ysolve);

  //---------------------------------------------------------------------
  // Do the block-diagonal inversion
  //---------------------------------------------------------------------
  pinvr();
}
