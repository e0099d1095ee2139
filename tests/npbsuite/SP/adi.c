#include "header.h"

//---------------------------------------------------------------------
// one time step: the right hand side, then the three factors of the
// approximate factorization, each a set of independent scalar
// pentadiagonal systems along grid lines
//---------------------------------------------------------------------
void adi()
{
  compute_rhs();

  txinvr();

  x_solve();

  y_solve();

  z_solve();

  add();
}
