#include "header.h"
#include "timers.h"

//---------------------------------------------------------------------
// block-diagonal matrix-vector multiplication: rhs = T^{-1} rhs
//---------------------------------------------------------------------
void txinvr()
{
  int i, j, k;
  double t1, t2, t3, ac, ru1, uu, vv, ww, r1, r2, r3, r4, r5, ac2inv;

  if (timeron) timer_start(t_txinvr);
#pragma acc parallel present(rho_i, us, vs, ws, speed, qs, rhs) \
        num_gangs(nz2) num_workers(8) vector_length(32)
  {
    #pragma acc loop gang
    for (k = 1; k <= nz2; k++) {
      #pragma acc loop worker
      for (j = 1; j <= ny2; j++) {
        #pragma acc loop vector
        for (i = 1; i <= nx2; i++) {
          ru1 = rho_i[k][j][i];
          uu = us[k][j][i];
          vv = vs[k][j][i];
          ww = ws[k][j][i];
          ac = speed[k][j][i];
          ac2inv = ac*ac;

          r1 = rhs[0][k][j][i];
          r2 = rhs[1][k][j][i];
          r3 = rhs[2][k][j][i];
          r4 = rhs[3][k][j][i];
          r5 = rhs[4][k][j][i];

          t1 = c2 / ac2inv * ( qs[k][j][i]*r1 - uu*r2  - vv*r3 - ww*r4 + r5 );
          t2 = bt * ru1 * ( uu * r1 - r2 );
          t3 = ( bt * ru1 * ac ) * t1;

          rhs[0][k][j][i] = r1 - t1;
          rhs[1][k][j][i] = - ru1 * ( ww*r1 - r4 );
          rhs[2][k][j][i] =   ru1 * ( vv*r1 - r3 );
          rhs[3][k][j][i] = - t2 + t3;
          rhs[4][k][j][i] =   t2 + t3;
        }
      }
    }
  }
  if (timeron) timer_stop(t_txinvr);
}
