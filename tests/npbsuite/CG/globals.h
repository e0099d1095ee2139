//---------------------------------------------------------------------
//  The problem size and the timers of CG.
//---------------------------------------------------------------------

#include "npbparams.h"
#include "type.h"

//---------------------------------------------------------------------
// Storage for the sparse matrix: NONZER+1 nonzeros in each of the
// NONZER+1 vectors of every outer product, at most.
//---------------------------------------------------------------------
#define NZ    (NA*(NONZER+1)*(NONZER+1))
#define NAZ   (NA*(NONZER+1))

#define T_init        0
#define T_bench       1
#define T_conj_grad   2
#define T_last        3
