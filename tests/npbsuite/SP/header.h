//---------------------------------------------------------------------
// The common blocks of SP: the grid, the constants of the equations,
// the fields and the work arrays of the line solvers, all global and
// defined in sp.c.  main creates the fields on the device for the
// whole run; every routine (in its own file) finds them there with
// present clauses.
//---------------------------------------------------------------------

#include "npbparams.h"
#include "type.h"

//---------------------------------------------------------------------
// The array dimensions; the leading ones are padded to even sizes.
//---------------------------------------------------------------------
#define IMAX      PROBLEM_SIZE
#define JMAX      PROBLEM_SIZE
#define KMAX      PROBLEM_SIZE
#define IMAXP     (IMAX/2*2)
#define JMAXP     (JMAX/2*2)

//---------------------------------------------------------------------
// the timers
//---------------------------------------------------------------------
#define t_total   1
#define t_rhsx    2
#define t_rhsy    3
#define t_rhsz    4
#define t_rhs     5
#define t_xsolve  6
#define t_ysolve  7
#define t_zsolve  8
#define t_rdis1   9
#define t_rdis2   10
#define t_tzetar  11
#define t_ninvr   12
#define t_pinvr   13
#define t_txinvr  14
#define t_add     15
#define t_last    15


/* common /global/ */
extern int grid_points[3], nx2, ny2, nz2;
extern logical timeron;

/* common /constants/ */
extern double tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3,
              dx1, dx2, dx3, dx4, dx5, dy1, dy2, dy3, dy4,
              dy5, dz1, dz2, dz3, dz4, dz5, dssp, dt,
              ce[5][13], dxmax, dymax, dzmax, xxcon1, xxcon2,
              xxcon3, xxcon4, xxcon5, dx1tx1, dx2tx1, dx3tx1,
              dx4tx1, dx5tx1, yycon1, yycon2, yycon3, yycon4,
              yycon5, dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1,
              zzcon1, zzcon2, zzcon3, zzcon4, zzcon5, dz1tz1,
              dz2tz1, dz3tz1, dz4tz1, dz5tz1, dnxm1, dnym1,
              dnzm1, c1c2, c1c5, c3c4, c1345, conz1, c1, c2,
              c3, c4, c5, c4dssp, c5dssp, dtdssp, dttx1, bt,
              dttx2, dtty1, dtty2, dttz1, dttz2, c2dttx1,
              c2dtty1, c2dttz1, comz1, comz4, comz5, comz6,
              c3c4tx3, c3c4ty3, c3c4tz3, c2iv, con43, con16;

/* common /fields/ */
extern double u      [5][KMAX][JMAXP+1][IMAXP+1];
extern double us     [KMAX][JMAXP+1][IMAXP+1];
extern double vs     [KMAX][JMAXP+1][IMAXP+1];
extern double ws     [KMAX][JMAXP+1][IMAXP+1];
extern double qs     [KMAX][JMAXP+1][IMAXP+1];
extern double rho_i  [KMAX][JMAXP+1][IMAXP+1];
extern double speed  [KMAX][JMAXP+1][IMAXP+1];
extern double square [KMAX][JMAXP+1][IMAXP+1];
extern double rhs    [5][KMAX][JMAXP+1][IMAXP+1];
extern double forcing[5][KMAX][JMAXP+1][IMAXP+1];

/* common /work_lhs/ */
extern double lhs    [5][KMAX][JMAXP+1][IMAXP+1];
extern double lhsp   [5][KMAX][JMAXP+1][IMAXP+1];
extern double lhsm   [5][KMAX][JMAXP+1][IMAXP+1];
extern double rhon   [KMAX][JMAXP+1][IMAXP+1];
extern double rhoq   [KMAX][JMAXP+1][IMAXP+1];
extern double rhos   [KMAX][JMAXP+1][IMAXP+1];


//-----------------------------------------------------------------------
// functions
//-----------------------------------------------------------------------
void initialize();
void exact_rhs();
void exact_solution(double xi, double eta, double zeta, double dtemp[5]);
void set_constants();
void adi();
void compute_rhs();
void txinvr();
void x_solve();
void y_solve();
void z_solve();
void ninvr();
void pinvr();
void tzetar();
void add();
void error_norm(double rms[5]);
void rhs_norm(double rms[5]);
void verify(int no_time_steps, char *Class, logical *verified);
