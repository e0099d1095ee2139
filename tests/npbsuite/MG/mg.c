//---------------------------------------------------------------------
//  program mg
//---------------------------------------------------------------------
//  NPB MG, in the structure of the OpenACC C ports of NPB 3.3: a
//  V-cycle multigrid solver of the discrete Poisson problem on a 3-D
//  periodic grid.  The three arrays u, v and r hold every level of the
//  grid hierarchy (level k starts at ir[k]) and are created on the
//  device once, by the data region of main; every routine receives a
//  pointer to the start of one level and finds it on the device through
//  its present clauses.  The line buffers of the sequential code are
//  whole grids here, allocated on the device (acc_malloc, deviceptr).
//---------------------------------------------------------------------

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include "globals.h"
#include "randdp.h"
#include "timers.h"
#include "print_results.h"
#ifdef _OPENACC
#include <openacc.h>
#endif

#define I3D(array,n1,n2,i3,i2,i1) (array[(i3)*n2*n1 + (i2)*n1 + (i1)])

static void setup(int *n1, int *n2, int *n3);
static void mg3P(double u[], double v[], double r[],
                 double a[4], double c[4], int n1, int n2, int n3);
static void psinv(double *or, double *ou, int n1, int n2, int n3,
                  double c[4], int k);
static void resid(double *ou, double *ov, double *or, int n1, int n2, int n3,
                  double a[4], int k);
static void rprj3(double *or, int m1k, int m2k, int m3k,
                  double *os, int m1j, int m2j, int m3j, int k);
static void interp(double *oz, int mm1, int mm2, int mm3,
                   double *ou, int n1, int n2, int n3, int k);
static void norm2u3(double *or, int n1, int n2, int n3,
                    double *rnm2, double *rnmu,
                    int nx, int ny, int nz);
static void rep_nrm(double *u, int n1, int n2, int n3, char *title, int kk);
static void comm3(double *ou, int n1, int n2, int n3, int kk);
static void zran3(double *oz, int n1, int n2, int n3, int nx, int ny, int k);
static void showall(double *oz, int n1, int n2, int n3);
static double power(double a, int n);
static void bubble(double ten[][2], int j1[][2], int j2[][2], int j3[][2],
                   int m, int ind);
static void zero3(double *oz, int n1, int n2, int n3);


//---------------------------------------------------------------------
// These arrays are in common because they are large; they are always
// passed to the routines as arguments.
//---------------------------------------------------------------------
/* common /noautom/ */
static double u[NR];
static double v[NR];
static double r[NR];
int gnr = NR;

/* common /grid/ */
static int is1, is2, is3, ie1, ie2, ie3;


int main()
{
  //---------------------------------------------------------------------
  // k is the current level, passed down through the routines' arguments;
  // it is the current iteration
  //---------------------------------------------------------------------
  int k, it;
  double t, tinit, mflops;

  double a[4], c[4];

  double rnm2, rnmu, old2, oldu, epsilon;
  int n1, n2, n3, nit;
  double nn, verify_value, err;
  logical verified;

  int i;
  char *t_names[T_last];
  double tmax;

  for (i = T_init; i < T_last; i++) {
    timer_clear(i);
  }
#ifdef _OPENACC
  acc_init(acc_device_default);
#endif
  timer_start(T_init);

  //---------------------------------------------------------------------
  // the input data
  //---------------------------------------------------------------------
  FILE *fp;
  if ((fp = fopen("timer.flag", "r")) != NULL) {
    timeron = true;
    t_names[T_init] = "init";
    t_names[T_bench] = "benchmk";
    t_names[T_mg3P] = "mg3P";
    t_names[T_psinv] = "psinv";
    t_names[T_resid] = "resid";
    t_names[T_rprj3] = "rprj3";
    t_names[T_interp] = "interp";
    t_names[T_norm2] = "norm2";
    t_names[T_comm3] = "comm3";
    fclose(fp);
  } else {
    timeron = false;
  }

  printf("\n\n NAS Parallel Benchmarks (NPB3.3-ACC-C) - MG Benchmark\n\n");

  printf(" No input file. Using compiled defaults \n");
  lt = LT_DEFAULT;
  nit = NIT_DEFAULT;
  nx[lt] = NX_DEFAULT;
  ny[lt] = NY_DEFAULT;
  nz[lt] = NZ_DEFAULT;
  for (i = 0; i <= 7; i++) {
    debug_vec[i] = DEBUG_DEFAULT;
  }

  if ( (nx[lt] != ny[lt]) || (nx[lt] != nz[lt]) ) {
    Class = 'U';
  } else if ( nx[lt] == 32 && nit == 4 ) {
    Class = 'S';
  } else if ( nx[lt] == 128 && nit == 4 ) {
    Class = 'W';
  } else if ( nx[lt] == 256 && nit == 4 ) {
    Class = 'A';
  } else if ( nx[lt] == 256 && nit == 20 ) {
    Class = 'B';
  } else {
    Class = 'U';
  }

  //---------------------------------------------------------------------
  // debug_vec[0] = 1 reports all norms, debug_vec[1] the setup,
  // debug_vec[2..5] = k shows the grids of resid, psinv, rprj3 and
  // interp at levels k and below.
  //---------------------------------------------------------------------
  a[0] = -8.0/3.0;
  a[1] =  0.0;
  a[2] =  1.0/6.0;
  a[3] =  1.0/12.0;

  if (Class == 'A' || Class == 'S' || Class =='W') {
    //-------------------------------------------------------------------
    // the coefficients of the S(a) smoother
    //-------------------------------------------------------------------
    c[0] =  -3.0/8.0;
    c[1] =  +1.0/32.0;
    c[2] =  -1.0/64.0;
    c[3] =   0.0;
  } else {
    //-------------------------------------------------------------------
    // the coefficients of the S(b) smoother
    //-------------------------------------------------------------------
    c[0] =  -3.0/17.0;
    c[1] =  +1.0/33.0;
    c[2] =  -1.0/61.0;
    c[3] =   0.0;
  }
  lb = 1;
  k  = lt;

#pragma acc data create(u[0:gnr], v[0:gnr], r[0:gnr])
{
  setup(&n1, &n2, &n3);
  zero3(u, n1, n2, n3);
  zran3(v, n1, n2, n3, nx[lt], ny[lt], k);

  norm2u3(v, n1, n2, n3, &rnm2, &rnmu, nx[lt], ny[lt], nz[lt]);

  printf(" Size: %4dx%4dx%4d  (class %c)\n", nx[lt], ny[lt], nz[lt], Class);
  printf(" Iterations: %3d\n", nit);
  printf("\n");

  resid(u, v, r, n1, n2, n3, a, k);
  norm2u3(r, n1, n2, n3, &rnm2, &rnmu, nx[lt], ny[lt], nz[lt]);
  old2 = rnm2;
  oldu = rnmu;

  //---------------------------------------------------------------------
  // one untimed iteration, then the problem is set up again
  //---------------------------------------------------------------------
  mg3P(u, v, r, a, c, n1, n2, n3);
  resid(u, v, r, n1, n2, n3, a, k);
  setup(&n1, &n2, &n3);
  zero3(u, n1, n2, n3);
  zran3(v, n1, n2, n3, nx[lt], ny[lt], k);

  timer_stop(T_init);
  tinit = timer_read(T_init);

  printf(" Initialization time: %15.3f seconds\n\n", tinit);

  for (i = T_bench; i < T_last; i++) {
    timer_clear(i);
  }

  timer_start(T_bench);

  if (timeron) timer_start(T_resid2);
  resid(u, v, r, n1, n2, n3, a, k);
  if (timeron) timer_stop(T_resid2);
  norm2u3(r, n1, n2, n3, &rnm2, &rnmu, nx[lt], ny[lt], nz[lt]);
  old2 = rnm2;
  oldu = rnmu;

  for (it = 1; it <= nit; it++) {
    if ((it == 1) || (it == nit) || ((it % 5) == 0)) {
      printf("  iter %3d\n", it);
    }
    if (timeron) timer_start(T_mg3P);
    mg3P(u, v, r, a, c, n1, n2, n3);
    if (timeron) timer_stop(T_mg3P);
    if (timeron) timer_start(T_resid2);
    resid(u, v, r, n1, n2, n3, a, k);
    if (timeron) timer_stop(T_resid2);
  }

  norm2u3(r, n1, n2, n3, &rnm2, &rnmu, nx[lt], ny[lt], nz[lt]);
} /* end acc data */

  timer_stop(T_bench);

  t = timer_read(T_bench);

  verified = false;
  verify_value = 0.0;

  printf("\n Benchmark completed\n");

  epsilon = 1.0e-8;
  if (Class != 'U') {
    if (Class == 'S') {
      verify_value = 0.5307707005734e-04;
    } else if (Class == 'W') {
      verify_value = 0.6467329375339e-05;
    } else if (Class == 'A') {
      verify_value = 0.2433365309069e-05;
    } else if (Class == 'B') {
      verify_value = 0.1800564401355e-05;
    }

    err = fabs( rnm2 - verify_value ) / verify_value;
    if (err <= epsilon) {
      verified = true;
      printf(" VERIFICATION SUCCESSFUL\n");
      printf(" L2 Norm is %20.13E\n", rnm2);
      printf(" Error is   %20.13E\n", err);
    } else {
      verified = false;
      printf(" VERIFICATION FAILED\n");
      printf(" L2 Norm is             %20.13E\n", rnm2);
      printf(" The correct L2 Norm is %20.13E\n", verify_value);
    }
  } else {
    verified = false;
    printf(" Problem size unknown\n");
    printf(" NO VERIFICATION PERFORMED\n");
    printf(" L2 Norm is %20.13E\n", rnm2);
  }

  nn = 1.0 * nx[lt] * ny[lt] * nz[lt];

  if (t != 0.0) {
    mflops = 58.0 * nit * nn * 1.0e-6 / t;
  } else {
    mflops = 0.0;
  }

  print_results("MG", Class, nx[lt], ny[lt], nz[lt],
                nit, t,
                mflops, "          floating point",
                verified, NPBVERSION, COMPILETIME,
                CS1, CS2, CS3, CS4, CS5, CS6, CS7);

  if (timeron) {
    tmax = timer_read(T_bench);
    if (tmax == 0.0) tmax = 1.0;

    printf("  SECTION   Time (secs)\n");
    for (i = T_bench; i < T_last; i++) {
      t = timer_read(i);
      if (i == T_resid2) {
        t = timer_read(T_resid) - t;
        printf("    --> %8s:%9.3f  (%6.2f%%)\n", "mg-resid", t, t*100./tmax);
      } else {
        printf("  %-8s:%9.3f  (%6.2f%%)\n", t_names[i], t, t*100./tmax);
      }
    }
  }

#ifdef _OPENACC
  acc_shutdown(acc_device_default);
#endif
  return 0;
}


//---------------------------------------------------------------------
// the sizes and offsets of the levels of the hierarchy
//---------------------------------------------------------------------
static void setup(int *n1, int *n2, int *n3)
{
  int k, j;

  int ax, mi[MAXLEVEL+1][3];
  int ng[MAXLEVEL+1][3];

  ng[lt][0] = nx[lt];
  ng[lt][1] = ny[lt];
  ng[lt][2] = nz[lt];
  for (k = lt-1; k >= 1; k--) {
    for (ax = 0; ax < 3; ax++) {
      ng[k][ax] = ng[k+1][ax]/2;
    }
  }
  for (k = lt; k >= 1; k--) {
    nx[k] = ng[k][0];
    ny[k] = ng[k][1];
    nz[k] = ng[k][2];
  }

  for (k = lt; k >= 1; k--) {
    for (ax = 0; ax < 3; ax++) {
      mi[k][ax] = 2 + ng[k][ax];
    }

    m1[k] = mi[k][0];
    m2[k] = mi[k][1];
    m3[k] = mi[k][2];
  }

  k = lt;
  is1 = 2 + ng[k][0] - ng[lt][0];
  ie1 = 1 + ng[k][0];
  *n1 = 3 + ie1 - is1;
  is2 = 2 + ng[k][1] - ng[lt][1];
  ie2 = 1 + ng[k][1];
  *n2 = 3 + ie2 - is2;
  is3 = 2 + ng[k][2] - ng[lt][2];
  ie3 = 1 + ng[k][2];
  *n3 = 3 + ie3 - is3;

  ir[lt] = 0;
  for (j = lt-1; j >= 1; j--) {
    ir[j] = ir[j+1]+ONE*m1[j+1]*m2[j+1]*m3[j+1];
  }

  if (debug_vec[1] >= 1) {
    printf(" in setup, \n");
    printf(" k  lt  nx  ny  nz  n1  n2  n3 is1 is2 is3 ie1 ie2 ie3\n");
    printf("%4d%4d%4d%4d%4d%4d%4d%4d%4d%4d%4d%4d%4d%4d\n",
        k,lt,ng[k][0],ng[k][1],ng[k][2],*n1,*n2,*n3,is1,is2,is3,ie1,ie2,ie3);
  }
}


//---------------------------------------------------------------------
// the V-cycle
//---------------------------------------------------------------------
static void mg3P(double u[], double v[], double r[],
                 double a[4], double c[4], int n1, int n2, int n3)
{
  int j, k;

  //---------------------------------------------------------------------
  // down cycle: restrict the residual from the fine grid to the coarse
  //---------------------------------------------------------------------
  for (k = lt; k >= lb+1; k--) {
    j = k - 1;
    rprj3(&r[ir[k]], m1[k], m2[k], m3[k],
          &r[ir[j]], m1[j], m2[j], m3[j], k);
  }

  k = lb;
  //---------------------------------------------------------------------
  // an approximate solution on the coarsest grid
  //---------------------------------------------------------------------
  zero3(&u[ir[k]], m1[k], m2[k], m3[k]);
  psinv(&r[ir[k]], &u[ir[k]], m1[k], m2[k], m3[k], c, k);

  for (k = lb+1; k <= lt-1; k++) {
    j = k - 1;

    //-------------------------------------------------------------------
    // prolongate from level k-1 to k
    //-------------------------------------------------------------------
    zero3(&u[ir[k]], m1[k], m2[k], m3[k]);
    interp(&u[ir[j]], m1[j], m2[j], m3[j], &u[ir[k]], m1[k], m2[k], m3[k], k);

    //-------------------------------------------------------------------
    // the residual at level k
    //-------------------------------------------------------------------
    resid(&u[ir[k]], &r[ir[k]], &r[ir[k]], m1[k], m2[k], m3[k], a, k);

    //-------------------------------------------------------------------
    // the smoother
    //-------------------------------------------------------------------
    psinv(&r[ir[k]], &u[ir[k]], m1[k], m2[k], m3[k], c, k);
  }

  j = lt - 1;
  k = lt;
  interp(&u[ir[j]], m1[j], m2[j], m3[j], u, n1, n2, n3, k);
  resid(u, v, r, n1, n2, n3, a, k);
  psinv(r, u, n1, n2, n3, c, k);
}


//---------------------------------------------------------------------
// psinv applies an approximate inverse as smoother:  u = u + Cr
//
// c[3] is assumed to be zero, as in the NPB.
//---------------------------------------------------------------------
static void psinv(double *or, double *ou, int n1, int n2, int n3,
                  double c[4], int k)
{
  int i3, i2, i1;
  double c0, c1, c2;
  double *r1, *r2;

  c0 = c[0];
  c1 = c[1];
  c2 = c[2];

#ifdef _OPENACC
  r1 = (double*)acc_malloc(n3*n2*n1*sizeof(double));
  r2 = (double*)acc_malloc(n3*n2*n1*sizeof(double));
#else
  r1 = (double*)malloc(n3*n2*n1*sizeof(double));
  r2 = (double*)malloc(n3*n2*n1*sizeof(double));
#endif

  if (timeron) timer_start(T_psinv);
#pragma acc data deviceptr(r1,r2) \
                 present(ou[0:n3*n2*n1]) \
                 present(or[0:n3*n2*n1])
{
  #pragma acc parallel loop gang num_gangs(n3-2) num_workers(8) vector_length(32)
  for (i3 = 1; i3 < n3-1; i3++) {
    #pragma acc loop worker
    for (i2 = 1; i2 < n2-1; i2++) {
      #pragma acc loop vector
      for (i1 = 0; i1 < n1; i1++) {
        I3D(r1, n1, n2, i3, i2, i1) = I3D(or, n1, n2, i3, i2-1, i1) + I3D(or, n1, n2, i3, i2+1, i1)
                                    + I3D(or, n1, n2, i3-1, i2, i1) + I3D(or, n1, n2, i3+1, i2, i1);
        I3D(r2, n1, n2, i3, i2, i1) = I3D(or, n1, n2, i3-1, i2-1, i1) + I3D(or, n1, n2, i3-1, i2+1, i1)
                                    + I3D(or, n1, n2, i3+1, i2-1, i1) + I3D(or, n1, n2, i3+1, i2+1, i1);
      }
    }
  }

  #pragma acc parallel loop gang num_gangs(n3-2) num_workers(8) vector_length(32)
  for (i3 = 1; i3 < n3-1; i3++) {
    #pragma acc loop worker
    for (i2 = 1; i2 < n2-1; i2++) {
      #pragma acc loop vector
      for (i1 = 1; i1 < n1-1; i1++) {
        I3D(ou, n1, n2, i3, i2, i1) = I3D(ou, n1, n2, i3, i2, i1)
                                    + c0 * I3D(or, n1, n2, i3, i2, i1)
                                    + c1 * ( I3D(or, n1, n2, i3, i2, i1-1)
                                           + I3D(or, n1, n2, i3, i2, i1+1)
                                           + I3D(r1, n1, n2, i3, i2, i1) )
                                    + c2 * ( I3D(r2, n1, n2, i3, i2, i1)
                                           + I3D(r1, n1, n2, i3, i2, i1-1)
                                           + I3D(r1, n1, n2, i3, i2, i1+1) );
        //---------------------------------------------------------------
        // with c[3] nonzero, add
        //   + c[3] * ( r2[i1-1] + r2[i1+1] )
        //---------------------------------------------------------------
      }
    }
  }
} /* end acc data */
  if (timeron) timer_stop(T_psinv);

#ifdef _OPENACC
  acc_free(r1);
  acc_free(r2);
#else
  free(r1);
  free(r2);
#endif

  //---------------------------------------------------------------------
  // exchange boundary points
  //---------------------------------------------------------------------
  comm3(ou, n1, n2, n3, k);

  if (debug_vec[0] >= 1) {
    rep_nrm(ou, n1, n2, n3, "   psinv", k);
  }

  if (debug_vec[3] >= k) {
    showall(ou, n1, n2, n3);
  }
}


//---------------------------------------------------------------------
// resid computes the residual:  r = v - Au
//
// a[1] is assumed to be zero, as in the NPB.
//---------------------------------------------------------------------
static void resid(double *ou, double *ov, double *or, int n1, int n2, int n3,
                  double a[4], int k)
{
  int i3, i2, i1;
  double a0, a2, a3;
  double *u1, *u2;

  a0 = a[0];
  a2 = a[2];
  a3 = a[3];

  if (timeron) timer_start(T_resid);
#ifdef _OPENACC
  u1 = (double*)acc_malloc(n3*n2*n1*sizeof(double));
  u2 = (double*)acc_malloc(n3*n2*n1*sizeof(double));
#else
  u1 = (double*)malloc(n3*n2*n1*sizeof(double));
  u2 = (double*)malloc(n3*n2*n1*sizeof(double));
#endif

#pragma acc data deviceptr(u1,u2) \
                 present(ou[0:n3*n2*n1]) \
                 present(ov[0:n3*n2*n1], or[0:n3*n2*n1])
{
  #pragma acc parallel num_gangs(n3-2) num_workers(8) vector_length(32)
  {
    #pragma acc loop gang
    for (i3 = 1; i3 < n3-1; i3++) {
      #pragma acc loop worker
      for (i2 = 1; i2 < n2-1; i2++) {
        #pragma acc loop vector
        for (i1 = 0; i1 < n1; i1++) {
          I3D(u1, n1, n2, i3, i2, i1) = I3D(ou, n1, n2, i3, i2-1, i1) + I3D(ou, n1, n2, i3, i2+1, i1)
                                      + I3D(ou, n1, n2, i3-1, i2, i1) + I3D(ou, n1, n2, i3+1, i2, i1);
          I3D(u2, n1, n2, i3, i2, i1) = I3D(ou, n1, n2, i3-1, i2-1, i1) + I3D(ou, n1, n2, i3-1, i2+1, i1)
                                      + I3D(ou, n1, n2, i3+1, i2-1, i1) + I3D(ou, n1, n2, i3+1, i2+1, i1);
        }
      }
    }
  }

  #pragma acc parallel num_gangs(n3-2) num_workers(8) vector_length(32)
  {
    #pragma acc loop gang
    for (i3 = 1; i3 < n3-1; i3++) {
      #pragma acc loop worker
      for (i2 = 1; i2 < n2-1; i2++) {
        #pragma acc loop vector
        for (i1 = 1; i1 < n1-1; i1++) {
          I3D(or, n1, n2, i3, i2, i1) = I3D(ov, n1, n2, i3, i2, i1)
                                      - a0 * I3D(ou, n1, n2, i3, i2, i1)
          //-------------------------------------------------------------
          // with a[1] nonzero, add
          //   - a[1] * ( u[i3][i2][i1-1] + u[i3][i2][i1+1] + u1[i1] )
          //-------------------------------------------------------------
                                      - a2 * ( I3D(u2, n1, n2, i3, i2, i1)
                                             + I3D(u1, n1, n2, i3, i2, i1-1)
                                             + I3D(u1, n1, n2, i3, i2, i1+1) )
                                      - a3 * ( I3D(u2, n1, n2, i3, i2, i1-1)
                                             + I3D(u2, n1, n2, i3, i2, i1+1) );
        }
      }
    }
  }
} /* end acc data */

#ifdef _OPENACC
  acc_free(u1);
  acc_free(u2);
#else
  free(u1);
  free(u2);
#endif
  if (timeron) timer_stop(T_resid);

  //---------------------------------------------------------------------
  // exchange boundary data
  //---------------------------------------------------------------------
  comm3(or, n1, n2, n3, k);

  if (debug_vec[0] >= 1) {
    rep_nrm(or, n1, n2, n3, "   resid", k);
  }

  if (debug_vec[2] >= k) {
    showall(or, n1, n2, n3);
  }
}


//---------------------------------------------------------------------
// rprj3 projects onto the next coarser grid, with a trilinear finite
// element projection:  s = r' = P r
//---------------------------------------------------------------------
static void rprj3(double *or, int m1k, int m2k, int m3k,
                  double *os, int m1j, int m2j, int m3j, int k)
{
  int j3, j2, j1, i3, i2, i1, d1, d2, d3, j;

  double *x1, *y1, x2, y2;

#ifdef _OPENACC
  x1 = (double*)acc_malloc(m3k*m2k*m1k*sizeof(double));
  y1 = (double*)acc_malloc(m3k*m2k*m1k*sizeof(double));
#else
  x1 = (double*)malloc(m3k*m2k*m1k*sizeof(double));
  y1 = (double*)malloc(m3k*m2k*m1k*sizeof(double));
#endif

  if (timeron) timer_start(T_rprj3);
  if (m1k == 3) {
    d1 = 2;
  } else {
    d1 = 1;
  }

  if (m2k == 3) {
    d2 = 2;
  } else {
    d2 = 1;
  }

  if (m3k == 3) {
    d3 = 2;
  } else {
    d3 = 1;
  }

#pragma acc data deviceptr(x1,y1) \
                 present(or[0:m3k*m2k*m1k]) \
                 present(os[0:m3j*m2j*m1j])
{
  #pragma acc parallel loop gang num_gangs(m3j-2) num_workers(8) vector_length(32)
  for (j3 = 1; j3 < m3j-1; j3++) {
    i3 = 2*j3-d3;
    #pragma acc loop worker
    for (j2 = 1; j2 < m2j-1; j2++) {
      i2 = 2*j2-d2;
      #pragma acc loop vector
      for (j1 = 1; j1 < m1j; j1++) {
        i1 = 2*j1-d1;
        I3D(x1, m1k, m2k, i3, i2, i1) = I3D(or, m1k, m2k, i3+1, i2,   i1) + I3D(or, m1k, m2k, i3+1, i2+2, i1)
                                      + I3D(or, m1k, m2k, i3,   i2+1, i1) + I3D(or, m1k, m2k, i3+2, i2+1, i1);
        I3D(y1, m1k, m2k, i3, i2, i1) = I3D(or, m1k, m2k, i3,   i2,   i1) + I3D(or, m1k, m2k, i3+2, i2,   i1)
                                      + I3D(or, m1k, m2k, i3,   i2+2, i1) + I3D(or, m1k, m2k, i3+2, i2+2, i1);
      }
    }
  }

  #pragma acc parallel loop gang num_gangs(m3j-2) num_workers(8) vector_length(32)
  for (j3 = 1; j3 < m3j-1; j3++) {
    i3 = 2*j3-d3;
    #pragma acc loop worker
    for (j2 = 1; j2 < m2j-1; j2++) {
      i2 = 2*j2-d2;
      #pragma acc loop vector
      for (j1 = 1; j1 < m1j-1; j1++) {
        i1 = 2*j1-d1;
        y2 = I3D(or, m1k, m2k, i3,   i2,   i1+1) + I3D(or, m1k, m2k, i3+2, i2,   i1+1)
           + I3D(or, m1k, m2k, i3,   i2+2, i1+1) + I3D(or, m1k, m2k, i3+2, i2+2, i1+1);
        x2 = I3D(or, m1k, m2k, i3+1, i2,   i1+1) + I3D(or, m1k, m2k, i3+1, i2+2, i1+1)
           + I3D(or, m1k, m2k, i3,   i2+1, i1+1) + I3D(or, m1k, m2k, i3+2, i2+1, i1+1);
        I3D(os, m1j, m2j, j3, j2, j1) =
                0.5 * I3D(or, m1k, m2k, i3+1, i2+1, i1+1)
              + 0.25 * ( I3D(or, m1k, m2k, i3+1, i2+1, i1) + I3D(or, m1k, m2k, i3+1, i2+1, i1+2) + x2 )
              + 0.125 * ( I3D(x1, m1k, m2k, i3, i2, i1) + I3D(x1, m1k, m2k, i3, i2, i1+2) + y2 )
              + 0.0625 * ( I3D(y1, m1k, m2k, i3, i2, i1) + I3D(y1, m1k, m2k, i3, i2, i1+2) );
      }
    }
  }
} /* end acc data */
  if (timeron) timer_stop(T_rprj3);

  j = k-1;
  comm3(os, m1j, m2j, m3j, j);

  if (debug_vec[0] >= 1) {
    rep_nrm(os, m1j, m2j, m3j, "   rprj3", k-1);
  }

  if (debug_vec[4] >= k) {
    showall(os, m1j, m2j, m3j);
  }

#ifdef _OPENACC
  acc_free(x1);
  acc_free(y1);
#else
  free(x1);
  free(y1);
#endif
}


//---------------------------------------------------------------------
// interp adds the trilinear interpolation of the correction from the
// coarser grid to the current approximation:  u = u + Qu'
//---------------------------------------------------------------------
static void interp(double *oz, int mm1, int mm2, int mm3,
                   double *ou, int n1, int n2, int n3, int k)
{
  int i3, i2, i1, d1, d2, d3, t1, t2, t3;

  double *z1, *z2, *z3;

#ifdef _OPENACC
  z1 = (double*)acc_malloc(mm3*mm2*mm1*sizeof(double));
  z2 = (double*)acc_malloc(mm3*mm2*mm1*sizeof(double));
  z3 = (double*)acc_malloc(mm3*mm2*mm1*sizeof(double));
#else
  z1 = (double*)malloc(mm3*mm2*mm1*sizeof(double));
  z2 = (double*)malloc(mm3*mm2*mm1*sizeof(double));
  z3 = (double*)malloc(mm3*mm2*mm1*sizeof(double));
#endif

  if (timeron) timer_start(T_interp);

#pragma acc data deviceptr(z1,z2,z3) \
                 present(oz[0:mm3*mm2*mm1]) \
                 present(ou[0:n3*n2*n1])
{
  if (n1 != 3 && n2 != 3 && n3 != 3) {

    #pragma acc parallel loop gang num_gangs(mm3-1) num_workers(8) vector_length(32)
    for (i3 = 0; i3 < mm3-1; i3++) {
      #pragma acc loop worker
      for (i2 = 0; i2 < mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = 0; i1 < mm1; i1++) {
          I3D(z1, mm1, mm2, i3, i2, i1) = I3D(oz, mm1, mm2, i3, i2+1, i1)
                                        + I3D(oz, mm1, mm2, i3, i2, i1);
          I3D(z2, mm1, mm2, i3, i2, i1) = I3D(oz, mm1, mm2, i3+1, i2, i1)
                                        + I3D(oz, mm1, mm2, i3, i2, i1);
          I3D(z3, mm1, mm2, i3, i2, i1) = I3D(oz, mm1, mm2, i3+1, i2+1, i1)
                                        + I3D(oz, mm1, mm2, i3+1, i2, i1)
                                        + I3D(z1, mm1, mm2, i3, i2, i1);
        }
      }
    }

    #pragma acc parallel loop gang num_gangs(mm3-1) num_workers(8) vector_length(32)
    for (i3 = 0; i3 < mm3-1; i3++) {
      #pragma acc loop worker
      for (i2 = 0; i2 < mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = 0; i1 < mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3, 2*i2, 2*i1) = I3D(ou, n1, n2, 2*i3, 2*i2, 2*i1)
                                            + I3D(oz, mm1, mm2, i3, i2, i1);
          I3D(ou, n1, n2, 2*i3, 2*i2, 2*i1+1) = I3D(ou, n1, n2, 2*i3, 2*i2, 2*i1+1)
                                              + 0.5 * ( I3D(oz, mm1, mm2, i3, i2, i1+1)
                                                      + I3D(oz, mm1, mm2, i3, i2, i1) );
        }
      }
    }

    #pragma acc parallel loop gang num_gangs(mm3-1) num_workers(8) vector_length(32)
    for (i3 = 0; i3 < mm3-1; i3++) {
      #pragma acc loop worker
      for (i2 = 0; i2 < mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = 0; i1 < mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3, 2*i2+1, 2*i1) = I3D(ou, n1, n2, 2*i3, 2*i2+1, 2*i1)
                                              + 0.5 * I3D(z1, mm1, mm2, i3, i2, i1);
          I3D(ou, n1, n2, 2*i3, 2*i2+1, 2*i1+1) = I3D(ou, n1, n2, 2*i3, 2*i2+1, 2*i1+1)
                                                + 0.25 * ( I3D(z1, mm1, mm2, i3, i2, i1)
                                                         + I3D(z1, mm1, mm2, i3, i2, i1+1) );
        }
      }
    }

    #pragma acc parallel loop gang num_gangs(mm3-1) num_workers(8) vector_length(32)
    for (i3 = 0; i3 < mm3-1; i3++) {
      #pragma acc loop worker
      for (i2 = 0; i2 < mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = 0; i1 < mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3+1, 2*i2, 2*i1) = I3D(ou, n1, n2, 2*i3+1, 2*i2, 2*i1)
                                              + 0.5 * I3D(z2, mm1, mm2, i3, i2, i1);
          I3D(ou, n1, n2, 2*i3+1, 2*i2, 2*i1+1) = I3D(ou, n1, n2, 2*i3+1, 2*i2, 2*i1+1)
                                                + 0.25 * ( I3D(z2, mm1, mm2, i3, i2, i1)
                                                         + I3D(z2, mm1, mm2, i3, i2, i1+1) );
        }
      }
    }

    #pragma acc parallel loop gang num_gangs(mm3-1) num_workers(8) vector_length(32)
    for (i3 = 0; i3 < mm3-1; i3++) {
      #pragma acc loop worker
      for (i2 = 0; i2 < mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = 0; i1 < mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3+1, 2*i2+1, 2*i1) = I3D(ou, n1, n2, 2*i3+1, 2*i2+1, 2*i1)
                                                + 0.25 * I3D(z3, mm1, mm2, i3, i2, i1);
          I3D(ou, n1, n2, 2*i3+1, 2*i2+1, 2*i1+1) = I3D(ou, n1, n2, 2*i3+1, 2*i2+1, 2*i1+1)
                                                  + 0.125 * ( I3D(z3, mm1, mm2, i3, i2, i1)
                                                            + I3D(z3, mm1, mm2, i3, i2, i1+1) );
        }
      }
    }

  } else {

    if (n1 == 3) {
      d1 = 2;
      t1 = 1;
    } else {
      d1 = 1;
      t1 = 0;
    }

    if (n2 == 3) {
      d2 = 2;
      t2 = 1;
    } else {
      d2 = 1;
      t2 = 0;
    }

    if (n3 == 3) {
      d3 = 2;
      t3 = 1;
    } else {
      d3 = 1;
      t3 = 0;
    }

    #pragma acc parallel loop gang num_gangs(mm3-d3) num_workers(8) vector_length(32)
    for (i3 = d3; i3 <= mm3-1; i3++) {
      #pragma acc loop worker
      for (i2 = d2; i2 <= mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = d1; i1 <= mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3-d3-1, 2*i2-d2-1, 2*i1-d1-1) =
            I3D(ou, n1, n2, 2*i3-d3-1, 2*i2-d2-1, 2*i1-d1-1)
            + I3D(oz, mm1, mm2, i3-1, i2-1, i1-1);
        }
        #pragma acc loop vector
        for (i1 = 1; i1 <= mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3-d3-1, 2*i2-d2-1, 2*i1-t1-1) =
            I3D(ou, n1, n2, 2*i3-d3-1, 2*i2-d2-1, 2*i1-t1-1)
            + 0.5 * ( I3D(oz, mm1, mm2, i3-1, i2-1, i1)
                    + I3D(oz, mm1, mm2, i3-1, i2-1, i1-1) );
        }
      }
      #pragma acc loop worker
      for (i2 = 1; i2 <= mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = d1; i1 <= mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3-d3-1, 2*i2-t2-1, 2*i1-d1-1) =
            I3D(ou, n1, n2, 2*i3-d3-1, 2*i2-t2-1, 2*i1-d1-1)
            + 0.5 * ( I3D(oz, mm1, mm2, i3-1, i2,   i1-1)
                    + I3D(oz, mm1, mm2, i3-1, i2-1, i1-1) );
        }
        #pragma acc loop vector
        for (i1 = 1; i1 <= mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3-d3-1, 2*i2-t2-1, 2*i1-t1-1) =
            I3D(ou, n1, n2, 2*i3-d3-1, 2*i2-t2-1, 2*i1-t1-1)
            + 0.25 * ( I3D(oz, mm1, mm2, i3-1, i2,   i1)
                     + I3D(oz, mm1, mm2, i3-1, i2-1, i1)
                     + I3D(oz, mm1, mm2, i3-1, i2,   i1-1)
                     + I3D(oz, mm1, mm2, i3-1, i2-1, i1-1) );
        }
      }
    }

    #pragma acc parallel loop gang num_gangs(mm3-1) num_workers(8) vector_length(32)
    for (i3 = 1; i3 <= mm3-1; i3++) {
      #pragma acc loop worker
      for (i2 = d2; i2 <= mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = d1; i1 <= mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3-t3-1, 2*i2-d2-1, 2*i1-d1-1) =
            I3D(ou, n1, n2, 2*i3-t3-1, 2*i2-d2-1, 2*i1-d1-1)
            + 0.5 * ( I3D(oz, mm1, mm2, i3,   i2-1, i1-1)
                    + I3D(oz, mm1, mm2, i3-1, i2-1, i1-1) );
        }
        #pragma acc loop vector
        for (i1 = 1; i1 <= mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3-t3-1, 2*i2-d2-1, 2*i1-t1-1) =
            I3D(ou, n1, n2, 2*i3-t3-1, 2*i2-d2-1, 2*i1-t1-1)
            + 0.25 * ( I3D(oz, mm1, mm2, i3,   i2-1, i1)
                     + I3D(oz, mm1, mm2, i3,   i2-1, i1-1)
                     + I3D(oz, mm1, mm2, i3-1, i2-1, i1)
                     + I3D(oz, mm1, mm2, i3-1, i2-1, i1-1) );
        }
      }
      #pragma acc loop worker
      for (i2 = 1; i2 <= mm2-1; i2++) {
        #pragma acc loop vector
        for (i1 = d1; i1 <= mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3-t3-1, 2*i2-t2-1, 2*i1-d1-1) =
            I3D(ou, n1, n2, 2*i3-t3-1, 2*i2-t2-1, 2*i1-d1-1)
            + 0.25 * ( I3D(oz, mm1, mm2, i3,   i2,   i1-1)
                     + I3D(oz, mm1, mm2, i3,   i2-1, i1-1)
                     + I3D(oz, mm1, mm2, i3-1, i2,   i1-1)
                     + I3D(oz, mm1, mm2, i3-1, i2-1, i1-1) );
        }
        #pragma acc loop vector
        for (i1 = 1; i1 <= mm1-1; i1++) {
          I3D(ou, n1, n2, 2*i3-t3-1, 2*i2-t2-1, 2*i1-t1-1) =
            I3D(ou, n1, n2, 2*i3-t3-1, 2*i2-t2-1, 2*i1-t1-1)
            + 0.125 * ( I3D(oz, mm1, mm2, i3,   i2,   i1)
                      + I3D(oz, mm1, mm2, i3,   i2-1, i1)
                      + I3D(oz, mm1, mm2, i3,   i2,   i1-1)
                      + I3D(oz, mm1, mm2, i3,   i2-1, i1-1)
                      + I3D(oz, mm1, mm2, i3-1, i2,   i1)
                      + I3D(oz, mm1, mm2, i3-1, i2-1, i1)
                      + I3D(oz, mm1, mm2, i3-1, i2,   i1-1)
                      + I3D(oz, mm1, mm2, i3-1, i2-1, i1-1) );
        }
      }
    }
  }
} /* end acc data */

#ifdef _OPENACC
  acc_free(z1);
  acc_free(z2);
  acc_free(z3);
#else
  free(z1);
  free(z2);
  free(z3);
#endif
  if (timeron) timer_stop(T_interp);

  if (debug_vec[0] >= 1) {
    rep_nrm(oz, mm1, mm2, mm3, "z: inter", k-1);
    rep_nrm(ou, n1, n2, n3, "u: inter", k);
  }

  if (debug_vec[5] >= k) {
    showall(oz, mm1, mm2, mm3);
    showall(ou, n1, n2, n3);
  }
}


//---------------------------------------------------------------------
// norm2u3 evaluates approximations to the L2 norm and the uniform (or
// L-infinity or Chebyshev) norm, assuming periodic or zero boundaries.
//---------------------------------------------------------------------
static void norm2u3(double *or, int n1, int n2, int n3,
                    double *rnm2, double *rnmu,
                    int nx, int ny, int nz)
{
  double s, a;
  double temp;
  int i3, i2, i1;

  double dn;

  if (timeron) timer_start(T_norm2);
  dn = 1.0*nx*ny*nz;

  s = 0.0;
  *rnmu = 0.0;
  temp = *rnmu;
#pragma acc data pcopyin(or[0:n3*n2*n1])
{
  #pragma acc parallel loop gang reduction(+:s) reduction(max:temp) \
                            num_gangs(n3-2) num_workers(8) vector_length(32)
  for (i3 = 1; i3 < n3-1; i3++) {
    #pragma acc loop worker
    for (i2 = 1; i2 < n2-1; i2++) {
      #pragma acc loop vector
      for (i1 = 1; i1 < n1-1; i1++) {
        s = s + pow(I3D(or, n1, n2, i3, i2, i1), 2.0);
        a = fabs(I3D(or, n1, n2, i3, i2, i1));
        temp = max(temp, a);
      }
    }
  }
} /* end acc data */
  *rnmu = temp;
  *rnm2 = sqrt(s / dn);
  if (timeron) timer_stop(T_norm2);
}


//---------------------------------------------------------------------
// report on norm
//---------------------------------------------------------------------
static void rep_nrm(double *u, int n1, int n2, int n3, char *title, int kk)
{
  double rnm2, rnmu;

  norm2u3(u, n1, n2, n3, &rnm2, &rnmu, nx[kk], ny[kk], nz[kk]);
  printf(" Level%2d in %8s: norms =%21.14E%21.14E\n", kk, title, rnm2, rnmu);
}


//---------------------------------------------------------------------
// comm3 copies the periodic borders
//---------------------------------------------------------------------
static void comm3(double *ou, int n1, int n2, int n3, int kk)
{
  int i1, i2, i3;

  if (timeron) timer_start(T_comm3);
#pragma acc data present(ou[0:n3*n2*n1])
{
  #pragma acc parallel loop gang num_gangs(n3-2) vector_length(32)
  for (i3 = 1; i3 < n3-1; i3++) {
    #pragma acc loop vector
    for (i2 = 1; i2 < n2-1; i2++) {
      I3D(ou, n1, n2, i3, i2, 0)    = I3D(ou, n1, n2, i3, i2, n1-2);
      I3D(ou, n1, n2, i3, i2, n1-1) = I3D(ou, n1, n2, i3, i2, 1);
    }
  }

  #pragma acc parallel loop gang num_gangs(n3-2) vector_length(32)
  for (i3 = 1; i3 < n3-1; i3++) {
    #pragma acc loop vector
    for (i1 = 0; i1 < n1; i1++) {
      I3D(ou, n1, n2, i3, 0, i1)    = I3D(ou, n1, n2, i3, n2-2, i1);
      I3D(ou, n1, n2, i3, n2-1, i1) = I3D(ou, n1, n2, i3, 1, i1);
    }
  }

  #pragma acc parallel loop gang num_gangs(n2) vector_length(32)
  for (i2 = 0; i2 < n2; i2++) {
    #pragma acc loop vector
    for (i1 = 0; i1 < n1; i1++) {
      I3D(ou, n1, n2, 0, i2, i1)    = I3D(ou, n1, n2, n3-2, i2, i1);
      I3D(ou, n1, n2, n3-1, i2, i1) = I3D(ou, n1, n2, 1, i2, i1);
    }
  }
} /* end acc data */
  if (timeron) timer_stop(T_comm3);
}


//---------------------------------------------------------------------
// zran3 puts +1 at ten randomly chosen points, -1 at ten other random
// points, and zero elsewhere.  The random field and the search for its
// extreme values are computed on the host; the result is sent to the
// device.
//---------------------------------------------------------------------
static void zran3(double *oz, int n1, int n2, int n3, int nx, int ny, int k)
{
  int i0, m0, m1;

  int i1, i2, i3, d1, e1, e2, e3;
  double xx, x0, x1, a1, a2, ai;

  const int mm = MM;
  const double a = pow(5.0, 13.0);
  const double x = 314159265.0;
  double ten[MM][2], best;
  int i, j1[MM][2], j2[MM][2], j3[MM][2];
  int jg[4][MM][2];

  double rdummy;

  a1 = power(a, nx);
  a2 = power(a, nx*ny);

  zero3(oz, n1, n2, n3);

  i = is1-2+nx*(is2-2+ny*(is3-2));

  ai = power(a, i);
  d1 = ie1 - is1 + 1;
  e1 = ie1 - is1 + 2;
  e2 = ie2 - is2 + 2;
  e3 = ie3 - is3 + 2;
  x0 = x;
  rdummy = randlc(&x0, ai);

  for (i3 = 1; i3 < e3; i3++) {
    x1 = x0;
    for (i2 = 1; i2 < e2; i2++) {
      xx = x1;
      vranlc(d1, &xx, a, &(I3D(oz, n1, n2, i3, i2, 1)));
      rdummy = randlc(&x1, a1);
    }
    rdummy = randlc(&x0, a2);
  }

  //---------------------------------------------------------------------
  // the ten largest and the ten smallest values
  //---------------------------------------------------------------------
  for (i = 0; i < mm; i++) {
    ten[i][1] = 0.0;
    j1[i][1] = 0;
    j2[i][1] = 0;
    j3[i][1] = 0;
    ten[i][0] = 1.0;
    j1[i][0] = 0;
    j2[i][0] = 0;
    j3[i][0] = 0;
  }

  for (i3 = 1; i3 < n3-1; i3++) {
    for (i2 = 1; i2 < n2-1; i2++) {
      for (i1 = 1; i1 < n1-1; i1++) {
        if (I3D(oz, n1, n2, i3, i2, i1) > ten[0][1]) {
          ten[0][1] = I3D(oz, n1, n2, i3, i2, i1);
          j1[0][1] = i1;
          j2[0][1] = i2;
          j3[0][1] = i3;
          bubble(ten, j1, j2, j3, mm, 1);
        }
        if (I3D(oz, n1, n2, i3, i2, i1) < ten[0][0]) {
          ten[0][0] = I3D(oz, n1, n2, i3, i2, i1);
          j1[0][0] = i1;
          j2[0][0] = i2;
          j3[0][0] = i3;
          bubble(ten, j1, j2, j3, mm, 0);
        }
      }
    }
  }

  //---------------------------------------------------------------------
  // their global positions
  //---------------------------------------------------------------------
  i1 = mm - 1;
  i0 = mm - 1;
  for (i = mm - 1; i >= 0; i--) {
    best = 0.0;
    if (best < ten[i1][1]) {
      jg[0][i][1] = 0;
      jg[1][i][1] = is1 - 2 + j1[i1][1];
      jg[2][i][1] = is2 - 2 + j2[i1][1];
      jg[3][i][1] = is3 - 2 + j3[i1][1];
      i1 = i1-1;
    } else {
      jg[0][i][1] = 0;
      jg[1][i][1] = 0;
      jg[2][i][1] = 0;
      jg[3][i][1] = 0;
    }

    best = 1.0;
    if (best > ten[i0][0]) {
      jg[0][i][0] = 0;
      jg[1][i][0] = is1 - 2 + j1[i0][0];
      jg[2][i][0] = is2 - 2 + j2[i0][0];
      jg[3][i][0] = is3 - 2 + j3[i0][0];
      i0 = i0-1;
    } else {
      jg[0][i][0] = 0;
      jg[1][i][0] = 0;
      jg[2][i][0] = 0;
      jg[3][i][0] = 0;
    }
  }
  m1 = 0;
  m0 = 0;

  for (i3 = 0; i3 < n3; i3++) {
    for (i2 = 0; i2 < n2; i2++) {
      for (i1 = 0; i1 < n1; i1++) {
        I3D(oz, n1, n2, i3, i2, i1) = 0.0;
      }
    }
  }

  for (i = mm-1; i >= m0; i--) {
    i3 = jg[3][i][0];
    i2 = jg[2][i][0];
    i1 = jg[1][i][0];
    I3D(oz, n1, n2, i3, i2, i1) = -1.0;
  }

  for (i = mm-1; i >= m1; i--) {
    i3 = jg[3][i][1];
    i2 = jg[2][i][1];
    i1 = jg[1][i][1];
    I3D(oz, n1, n2, i3, i2, i1) = +1.0;
  }
  #pragma acc update device(oz[0:n3*n2*n1])

  comm3(oz, n1, n2, n3, k);
}


static void showall(double *oz, int n1, int n2, int n3)
{
  int i1, i2, i3;
  int m1, m2, m3;

  #pragma acc update host(oz[0:n3*n2*n1])

  m1 = min(n1, 18);
  m2 = min(n2, 14);
  m3 = min(n3, 18);

  printf("   \n");
  for (i3 = 0; i3 < m3; i3++) {
    for (i1 = 0; i1 < m1; i1++) {
      for (i2 = 0; i2 < m2; i2++) {
        printf("%6.3f", I3D(oz, n1, n2, i3, i2, i1));
      }
      printf("\n");
    }
    printf("  - - - - - - - \n");
  }
  printf("   \n");
}


//---------------------------------------------------------------------
// power raises an integer, disguised as a double precision real, to an
// integer power (mod 2^46)
//---------------------------------------------------------------------
static double power(double a, int n)
{
  double aj;
  int nj;
  double rdummy;
  double power;

  power = 1.0;
  nj = n;
  aj = a;

  while (nj != 0) {
    if ((nj % 2) == 1) rdummy = randlc(&power, aj);
    rdummy = randlc(&aj, aj);
    nj = nj/2;
  }

  return power;
}


//---------------------------------------------------------------------
// bubble does a bubble sort in direction ind
//---------------------------------------------------------------------
static void bubble(double ten[][2], int j1[][2], int j2[][2], int j3[][2],
                   int m, int ind)
{
  double temp;
  int i, j_temp;

  if (ind == 1) {
    for (i = 0; i < m-1; i++) {
      if (ten[i][ind] > ten[i+1][ind]) {
        temp = ten[i+1][ind];
        ten[i+1][ind] = ten[i][ind];
        ten[i][ind] = temp;

        j_temp = j1[i+1][ind];
        j1[i+1][ind] = j1[i][ind];
        j1[i][ind] = j_temp;

        j_temp = j2[i+1][ind];
        j2[i+1][ind] = j2[i][ind];
        j2[i][ind] = j_temp;

        j_temp = j3[i+1][ind];
        j3[i+1][ind] = j3[i][ind];
        j3[i][ind] = j_temp;
      } else {
        return;
      }
    }
  } else {
    for (i = 0; i < m-1; i++) {
      if (ten[i][ind] < ten[i+1][ind]) {
        temp = ten[i+1][ind];
        ten[i+1][ind] = ten[i][ind];
        ten[i][ind] = temp;

        j_temp = j1[i+1][ind];
        j1[i+1][ind] = j1[i][ind];
        j1[i][ind] = j_temp;

        j_temp = j2[i+1][ind];
        j2[i+1][ind] = j2[i][ind];
        j2[i][ind] = j_temp;

        j_temp = j3[i+1][ind];
        j3[i+1][ind] = j3[i][ind];
        j3[i][ind] = j_temp;
      } else {
        return;
      }
    }
  }
}


static void zero3(double *oz, int n1, int n2, int n3)
{
  int i1, i2, i3;

#pragma acc parallel present(oz[0:n3*n2*n1]) num_gangs(n3) num_workers(8) vector_length(32)
  {
    #pragma acc loop gang
    for (i3 = 0; i3 < n3; i3++) {
      #pragma acc loop worker
      for (i2 = 0; i2 < n2; i2++) {
        #pragma acc loop vector
        for (i1 = 0; i1 < n1; i1++) {
          I3D(oz, n1, n2, i3, i2, i1) = 0.0;
        }
      }
    }
  }
}
