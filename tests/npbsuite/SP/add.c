#include "header.h"
#include "timers.h"

//---------------------------------------------------------------------
// addition of update to the vector u
//---------------------------------------------------------------------
void add()
{
  int i, j, k, m;

  if (timeron) timer_start(t_add);
#pragma acc parallel present(rhs, u) num_gangs(nz2) num_workers(8) vector_length(32)
  {
    #pragma acc loop gang
    for (k = 1; k <= nz2; k++) {
      #pragma acc loop worker
      for (j = 1; j <= ny2; j++) {
        #pragma acc loop vector
        for (i = 1; i <= nx2; i++) {
          for (m = 0; m < 5; m++) {
            u[m][k][j][i] = u[m][k][j][i] + rhs[m][k][j][i];
          }
        }
      }
    }
  }
  if (timeron) timer_stop(t_add);
}
