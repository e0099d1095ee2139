#include "header.h"
#include "timers.h"

//---------------------------------------------------------------------
// block-diagonal matrix-vector multiplication between the y and z
// factors
//---------------------------------------------------------------------
void pinvr()
{
  int i, j, k;
  double r1, r2, r3, r4, r5, t1, t2;

  if (timeron) timer_start(t_pinvr);
#pragma acc parallel present(rhs) num_gangs(nz2) num_workers(8) vector_length(32)
  {
    #pragma acc loop gang
    for (k = 1; k <= nz2; k++) {
      #pragma acc loop worker
      for (j = 1; j <= ny2; j++) {
        #pragma acc loop vector
        for (i = 1; i <= nx2; i++) {
          r1 = rhs[0][k][j][i];
          r2 = rhs[1][k][j][i];
          r3 = rhs[2][k][j][i];
          r4 = rhs[3][k][j][i];
          r5 = rhs[4][k][j][i];

          t1 = bt * r1;
          t2 = 0.5 * ( r4 + r5 );

          rhs[0][k][j][i] =  bt * ( r4 - r5 );
          rhs[1][k][j][i] = -r3;
          rhs[2][k][j][i] =  r2;
          rhs[3][k][j][i] = -t1 + t2;
          rhs[4][k][j][i] =  t1 + t2;
        }
      }
    }
  }
  if (timeron) timer_stop(t_pinvr);
}
