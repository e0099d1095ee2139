//---------------------------------------------------------------------
//  The grid hierarchy, the timers and the common blocks of MG.
//---------------------------------------------------------------------

#include "npbparams.h"
#include "type.h"

//---------------------------------------------------------------------
// LM is the log_2 of the largest edge of a grid; the arrays hold every
// level of the hierarchy, with a border of one point for the periodic
// boundaries.
//---------------------------------------------------------------------
#define NM          (2+(1<<LM))
#define NV          (ONE*(2+(1<<NDIM1))*(2+(1<<NDIM2))*(2+(1<<NDIM3)))
#define NR          (((NV+NM*NM+5*NM+7*LM+6)/7)*8)
#define MAXLEVEL    (LT_DEFAULT+1)
#define M           (NM+1)
#define MM          10
#define A           pow(5.0,13.0)
#define X           314159265.0

#define T_init      0
#define T_bench     1
#define T_mg3P      2
#define T_psinv     3
#define T_resid     4
#define T_resid2    5
#define T_rprj3     6
#define T_interp    7
#define T_norm2     8
#define T_comm3     9
#define T_last      10


/* common /mg/ */
static int nx[MAXLEVEL+1];
static int ny[MAXLEVEL+1];
static int nz[MAXLEVEL+1];

static char Class;

static int debug_vec[8];

static int m1[MAXLEVEL+1];
static int m2[MAXLEVEL+1];
static int m3[MAXLEVEL+1];
static int ir[MAXLEVEL+1];
static int lt, lb;


/* common /timers/ */
static logical timeron;
