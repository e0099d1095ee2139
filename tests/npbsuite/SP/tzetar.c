#include "header.h"
#include "timers.h"

//---------------------------------------------------------------------
// block-diagonal matrix-vector multiplication after the z factor
//---------------------------------------------------------------------
void tzetar()
{
  int i, j, k;
  double t1, t2, t3, ac, xvel, yvel, zvel, r1, r2, r3, r4, r5;
  double btuz, ac2u, uzik1;

  if (timeron) timer_start(t_tzetar);
#pragma acc parallel present(us, vs, ws, qs, u, speed, rhs) \
        num_gangs(nz2) num_workers(8) vector_length(32)
  {
    #pragma acc loop gang
    for (k = 1; k <= nz2; k++) {
      #pragma acc loop worker
      for (j = 1; j <= ny2; j++) {
        #pragma acc loop vector
        for (i = 1; i <= nx2; i++) {
          xvel = us[k][j][i];
          yvel = vs[k][j][i];
          zvel = ws[k][j][i];
          ac   = speed[k][j][i];

          ac2u = ac*ac;

          r1 = rhs[0][k][j][i];
          r2 = rhs[1][k][j][i];
          r3 = rhs[2][k][j][i];
          r4 = rhs[3][k][j][i];
          r5 = rhs[4][k][j][i];

          uzik1 = u[0][k][j][i];
          btuz  = bt * uzik1;

          t1 = btuz/ac * (r4 + r5);
          t2 = r3 + t1;
          t3 = btuz * (r4 - r5);

          rhs[0][k][j][i] = t2;
          rhs[1][k][j][i] = -uzik1*r2 + xvel*t2;
          rhs[2][k][j][i] =  uzik1*r1 + yvel*t2;
          rhs[3][k][j][i] =  zvel*t2  + t3;
          rhs[4][k][j][i] =  uzik1*(-xvel*r2 + yvel*r1) +
                             qs[k][j][i]*t2 + c2iv*ac2u*t1 + zvel*t3;
        }
      }
    }
  }
  if (timeron) timer_stop(t_tzetar);
}
