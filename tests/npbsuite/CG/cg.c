//---------------------------------------------------------------------
// NPB CG, in the structure of the OpenACC C ports of NPB 3.3.
//
// The inverse power method estimates the largest eigenvalue of a
// symmetric positive definite sparse matrix with a random pattern of
// nonzeros; every outer iteration solves A z = x with 25 iterations
// of the conjugate gradient method.  The matrix is generated on the
// host (makea), copied to the device once, and every vector lives on
// the device for the whole run: conj_grad finds them there through
// its present clauses.
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

//---------------------------------------------------------------------
unsigned int nz  = (NA*(NONZER+1)*(NONZER+1));
unsigned int naz = (NA*(NONZER+1));
unsigned int na  = NA;

/* common / main_int_mem / */
static int colidx[NZ];
static int rowstr[NA+1];
static int iv[NA];
static int arow[NA];
static int acol[NAZ];

/* common / main_flt_mem / */
static double aelt[NAZ];
static double a[NZ];
static double x[NA+2];
static double z[NA+2];
static double p[NA+2];
static double q[NA+2];
static double r[NA+2];

/* common / partit_size / */
static int naa;
static int nzz;
static int firstrow;
static int lastrow;
static int firstcol;
static int lastcol;

/* common /urando/ */
static double amult;
static double tran;

/* common /timers/ */
static logical timeron;
//---------------------------------------------------------------------


//---------------------------------------------------------------------
static void conj_grad(int colidx[],
                      int rowstr[],
                      double x[],
                      double z[],
                      double a[],
                      double p[],
                      double q[],
                      double r[],
                      double *rnorm);
static void makea(int n,
                  int nz,
                  double a[],
                  int colidx[],
                  int rowstr[],
                  int firstrow,
                  int lastrow,
                  int firstcol,
                  int lastcol,
                  int arow[],
                  int acol[][NONZER+1],
                  double aelt[][NONZER+1],
                  int iv[]);
static void sparse(double a[],
                   int colidx[],
                   int rowstr[],
                   int n,
                   int nz,
                   int nozer,
                   int arow[],
                   int acol[][NONZER+1],
                   double aelt[][NONZER+1],
                   int firstrow,
                   int lastrow,
                   int nzloc[],
                   double rcond,
                   double shift);
static void sprnvc(int n, int nz, int nn1, double v[], int iv[]);
static int icnvrt(double x, int ipwr2);
static void vecset(int n, double v[], int iv[], int *nzv, int i, double val);
//---------------------------------------------------------------------


int main(int argc, char *argv[])
{
  int i, j, k, it;
  int end;

  double zeta;
  double rnorm;
  double norm_temp1, norm_temp2;

  double t, mflops, tmax;
  char Class;
  logical verified;
  double zeta_verify_value, epsilon, err;

  char *t_names[T_last];

#ifdef _OPENACC
  acc_init(acc_device_default);
#endif

  for (i = 0; i < T_last; i++) {
    timer_clear(i);
  }

  FILE *fp;
  if ((fp = fopen("timer.flag", "r")) != NULL) {
    timeron = true;
    t_names[T_init] = "init";
    t_names[T_bench] = "benchmk";
    t_names[T_conj_grad] = "conjgd";
    fclose(fp);
  } else {
    timeron = false;
  }

  timer_start(T_init);

  firstrow = 0;
  lastrow  = NA-1;
  firstcol = 0;
  lastcol  = NA-1;

  if (NA == 1400 && NONZER == 7 && NITER == 15 && SHIFT == 10) {
    Class = 'S';
    zeta_verify_value = 8.5971775078648;
  } else if (NA == 7000 && NONZER == 8 && NITER == 15 && SHIFT == 12) {
    Class = 'W';
    zeta_verify_value = 10.362595087124;
  } else if (NA == 14000 && NONZER == 11 && NITER == 15 && SHIFT == 20) {
    Class = 'A';
    zeta_verify_value = 17.130235054029;
  } else {
    Class = 'U';
  }

  printf("\n\n NAS Parallel Benchmarks (NPB3.3-ACC-C) - CG Benchmark\n\n");
  printf(" Size: %11d\n", NA);
  printf(" Iterations: %5d\n", NITER);
  printf("\n");

  naa = NA;
  nzz = NZ;

  //---------------------------------------------------------------------
  // the random number generator
  //---------------------------------------------------------------------
  tran    = 314159265.0;
  amult   = 1220703125.0;
  zeta    = randlc(&tran, amult);

  //---------------------------------------------------------------------
  // the matrix
  //---------------------------------------------------------------------
  makea(naa, nzz, a, colidx, rowstr,
        firstrow, lastrow, firstcol, lastcol,
        arow,
        (int (*)[NONZER+1])(void*)acol,
        (double (*)[NONZER+1])(void*)aelt,
        iv);

  //---------------------------------------------------------------------
  // makea leaves row indices 0 .. lastrow-firstrow in rowstr and column
  // indices firstcol .. lastcol in colidx: make the column indices
  // local, 0 .. lastcol-firstcol.
  //---------------------------------------------------------------------
  for (j = 0; j < lastrow - firstrow + 1; j++) {
    for (k = rowstr[j]; k < rowstr[j+1]; k++) {
      colidx[k] = colidx[k] - firstcol;
    }
  }

#pragma acc data copyin(colidx[0:nz], a[0:nz], rowstr[0:na+1]) \
                 create(x[0:na+2], z[0:na+2], p[0:na+2], q[0:na+2], r[0:na+2])
{
  //---------------------------------------------------------------------
  // the starting vector (1, 1, .... 1)
  //---------------------------------------------------------------------
  #pragma acc kernels loop gang((NA+1+127)/128) vector(128)
  for (i = 0; i < NA+1; i++) {
    x[i] = 1.0;
  }

  end = lastcol - firstcol + 1;
  #pragma acc kernels loop gang((end+127)/128) vector(128)
  for (j = 0; j < end; j++) {
    q[j] = 0.0;
    z[j] = 0.0;
    r[j] = 0.0;
    p[j] = 0.0;
  }

  zeta = 0.0;

  //---------------------------------------------------------------------
  // One untimed iteration touches all code and data, then the vector
  // is reset and the timed iterations start.
  //---------------------------------------------------------------------
  for (it = 1; it <= 1; it++) {
    conj_grad(colidx, rowstr, x, z, a, p, q, r, &rnorm);

    //-------------------------------------------------------------------
    // zeta = shift + 1/(x.z); first the norm of z
    //-------------------------------------------------------------------
    norm_temp1 = 0.0;
    norm_temp2 = 0.0;
    #pragma acc parallel loop num_gangs((end+127)/128) num_workers(4) \
                              vector_length(32) reduction(+:norm_temp2)
    for (j = 0; j < end; j++) {
      norm_temp2 = norm_temp2 + z[j] * z[j];
    }

    norm_temp2 = 1.0 / sqrt(norm_temp2);

    //-------------------------------------------------------------------
    // x = z / ||z||
    //-------------------------------------------------------------------
    #pragma acc kernels loop gang((end+127)/128) vector(128)
    for (j = 0; j < end; j++) {
      x[j] = norm_temp2 * z[j];
    }
  }

  #pragma acc kernels loop gang((NA+1+127)/128) vector(128)
  for (i = 0; i < NA+1; i++) {
    x[i] = 1.0;
  }

  zeta = 0.0;

  timer_stop(T_init);

  printf(" Initialization time = %15.3f seconds\n", timer_read(T_init));

  timer_start(T_bench);

  //---------------------------------------------------------------------
  // the inverse power method
  //---------------------------------------------------------------------
  for (it = 1; it <= NITER; it++) {
    if (timeron) timer_start(T_conj_grad);
    conj_grad(colidx, rowstr, x, z, a, p, q, r, &rnorm);
    if (timeron) timer_stop(T_conj_grad);

    norm_temp1 = 0.0;
    norm_temp2 = 0.0;
    #pragma acc parallel loop gang worker vector num_gangs((end+127)/128) num_workers(4) \
                              vector_length(32) reduction(+:norm_temp1,norm_temp2)
    for (j = 0; j < end; j++) {
      norm_temp1 = norm_temp1 + x[j]*z[j];
      norm_temp2 = norm_temp2 + z[j]*z[j];
    }

    norm_temp2 = 1.0 / sqrt(norm_temp2);

    zeta = SHIFT + 1.0 / norm_temp1;
    if (it == 1)
      printf("\n   iteration           ||r||                 zeta\n");
    printf("    %5d       %20.14E%20.13f\n", it, rnorm, zeta);

    #pragma acc kernels loop gang((end+127)/128) vector(128)
    for (j = 0; j < end; j++) {
      x[j] = norm_temp2 * z[j];
    }
  }

  timer_stop(T_bench);
} /* end acc data */

  t = timer_read(T_bench);

  printf(" Benchmark completed\n");

  epsilon = 1.0e-10;
  if (Class != 'U') {
    err = fabs(zeta - zeta_verify_value) / zeta_verify_value;
    if (err <= epsilon) {
      verified = true;
      printf(" VERIFICATION SUCCESSFUL\n");
      printf(" Zeta is    %20.13E\n", zeta);
      printf(" Error is   %20.13E\n", err);
    } else {
      verified = false;
      printf(" VERIFICATION FAILED\n");
      printf(" Zeta                %20.13E\n", zeta);
      printf(" The correct zeta is %20.13E\n", zeta_verify_value);
    }
  } else {
    verified = false;
    printf(" Problem size unknown\n");
    printf(" NO VERIFICATION PERFORMED\n");
  }

  if (t != 0.0) {
    mflops = (double)(2*NITER*NA)
                   * (3.0+(double)(NONZER*(NONZER+1))
                     + 25.0*(5.0+(double)(NONZER*(NONZER+1)))
                     + 3.0) / t / 1000000.0;
  } else {
    mflops = 0.0;
  }

  print_results("CG", Class, NA, 0, 0,
                NITER, t,
                mflops, "          floating point",
                verified, NPBVERSION, COMPILETIME,
                CS1, CS2, CS3, CS4, CS5, CS6, CS7);

  if (timeron) {
    tmax = timer_read(T_bench);
    if (tmax == 0.0) tmax = 1.0;
    printf("  SECTION   Time (secs)\n");
    for (i = 0; i < T_last; i++) {
      t = timer_read(i);
      if (i == T_init) {
        printf("  %8s:%9.3f\n", t_names[i], t);
      } else {
        printf("  %8s:%9.3f  (%6.2f%%)\n", t_names[i], t, t*100.0/tmax);
        if (i == T_conj_grad) {
          t = tmax - t;
          printf("    --> %8s:%9.3f  (%6.2f%%)\n", "rest", t, t*100.0/tmax);
        }
      }
    }
  }

#ifdef _OPENACC
  acc_shutdown(acc_device_default);
#endif
  return 0;
}


//---------------------------------------------------------------------
// The conjugate gradient solver of A z = x, 25 iterations from z = 0;
// rnorm is ||x - A z||.  The floating point arrays are named as in the
// NPB1 specification of CG.
//---------------------------------------------------------------------
static void conj_grad(int colidx[],
                      int rowstr[],
                      double x[],
                      double z[],
                      double a[],
                      double p[],
                      double q[],
                      double r[],
                      double *rnorm)
{
  int j, k, tmp1, tmp2, tmp3;
  int end;
  int cgit, cgitmax = 25;
  double d, sum, rho, rho0, alpha, beta;

  rho = 0.0;

#pragma acc data present(colidx[0:nz], rowstr[0:na+1], \
                         x[0:na+2], z[0:na+2], \
                         a[0:nz], p[0:na+2], \
                         q[0:na+2], r[0:na+2])
{
  //---------------------------------------------------------------------
  // q = z = 0, r = p = x
  //---------------------------------------------------------------------
  #pragma acc kernels loop gang((naa+127)/128) vector(128) independent
  for (j = 0; j < naa; j++) {
    q[j] = 0.0;
    z[j] = 0.0;
    r[j] = x[j];
    p[j] = r[j];
  }

  //---------------------------------------------------------------------
  // rho = r.r
  //---------------------------------------------------------------------
  #pragma acc parallel loop gang worker vector num_gangs((lastcol-firstcol+1+127)/128) \
                            num_workers(4) vector_length(32) reduction(+:rho)
  for (j = 0; j < lastcol - firstcol + 1; j++) {
    rho = rho + r[j]*r[j];
  }

  //---------------------------------------------------------------------
  // the conjugate gradient iterations
  //---------------------------------------------------------------------
  for (cgit = 1; cgit <= cgitmax; cgit++) {
    //-------------------------------------------------------------------
    // q = A.p, one row per gang, the row's products summed by its
    // workers and vector lanes
    //-------------------------------------------------------------------
    end = lastrow - firstrow + 1;

    #pragma acc parallel num_gangs(end) num_workers(4) vector_length(32)
    {
      #pragma acc loop gang
      for (j = 0; j < end; j++) {
        tmp1 = rowstr[j];
        tmp2 = rowstr[j+1];
        sum = 0.0;
        #pragma acc loop worker vector reduction(+:sum)
        for (k = tmp1; k < tmp2; k++) {
          tmp3 = colidx[k];
          sum = sum + a[k]*p[tmp3];
        }
        q[j] = sum;
      }
    }

    //-------------------------------------------------------------------
    // p.q
    //-------------------------------------------------------------------
    d = 0.0;
    end = lastcol - firstcol + 1;
    #pragma acc parallel num_gangs((end+127)/128) num_workers(4) vector_length(32)
    {
      #pragma acc loop gang worker vector reduction(+:d)
      for (j = 0; j < end; j++) {
        d = d + p[j]*q[j];
      }
    }

    //-------------------------------------------------------------------
    // alpha = rho / (p.q)
    //-------------------------------------------------------------------
    alpha = rho / d;

    rho0 = rho;

    //-------------------------------------------------------------------
    // z = z + alpha*p,  r = r - alpha*q
    //-------------------------------------------------------------------
    rho = 0.0;
    #pragma acc kernels loop gang((end+1023)/1024) vector(1024) independent
    for (j = 0; j < end; j++) {
      z[j] = z[j] + alpha*p[j];
      r[j] = r[j] - alpha*q[j];
    }

    //-------------------------------------------------------------------
    // rho = r.r
    //-------------------------------------------------------------------
    #pragma acc parallel num_gangs((end+127)/128) num_workers(4) vector_length(32)
    {
      #pragma acc loop gang worker vector reduction(+:rho)
      for (j = 0; j < end; j++) {
        rho = rho + r[j]*r[j];
      }
    }

    beta = rho / rho0;

    //-------------------------------------------------------------------
    // p = r + beta*p
    //-------------------------------------------------------------------
    #pragma acc kernels loop gang((end+127)/128) vector(128) independent
    for (j = 0; j < end; j++) {
      p[j] = r[j] + beta*p[j];
    }
  }

  //---------------------------------------------------------------------
  // the residual norm ||r|| = ||x - A.z||: first r = A.z
  //---------------------------------------------------------------------
  end = lastrow - firstrow + 1;
  #pragma acc parallel loop gang num_gangs(end) num_workers(4) vector_length(32)
  for (j = 0; j < end; j++) {
    tmp1 = rowstr[j];
    tmp2 = rowstr[j+1];
    d = 0.0;
    #pragma acc loop worker vector reduction(+:d)
    for (k = tmp1; k < tmp2; k++) {
      tmp3 = colidx[k];
      d = d + a[k]*z[tmp3];
    }
    r[j] = d;
  }

  //---------------------------------------------------------------------
  // then ||x - r||
  //---------------------------------------------------------------------
  sum = 0.0;
  #pragma acc parallel loop gang worker vector \
                            num_gangs((lastcol-firstcol+1+127)/128) \
                            num_workers(4) vector_length(32) \
                            reduction(+:sum)
  for (j = 0; j < lastcol-firstcol+1; j++) {
    d   = x[j] - r[j];
    sum = sum + d*d;
  }
} /* end acc data */

  *rnorm = sqrt(sum);
}


//---------------------------------------------------------------------
// makea generates the sparse matrix of the benchmark, with a
// prescribed sparsity distribution:
//
//   n        number of rows and columns
//   nz       room for nonzeros (the declared size of a and colidx)
//   a        the nonzeros
//   colidx   their column indices
//   rowstr   the start of every row in a
//   arow, acol, aelt, iv   workspace
//---------------------------------------------------------------------
static void makea(int n,
                  int nz,
                  double a[],
                  int colidx[],
                  int rowstr[],
                  int firstrow,
                  int lastrow,
                  int firstcol,
                  int lastcol,
                  int arow[],
                  int acol[][NONZER+1],
                  double aelt[][NONZER+1],
                  int iv[])
{
  int iouter, ivelt, nzv, nn1;
  int ivc[NONZER+1];
  double vc[NONZER+1];

  //---------------------------------------------------------------------
  // nn1: the smallest power of two not less than n
  //---------------------------------------------------------------------
  nn1 = 1;
  do {
    nn1 = 2 * nn1;
  } while (nn1 < n);

  //---------------------------------------------------------------------
  // the positions of the nonzeros, one sparse vector per row, each with
  // 0.5 on the diagonal
  //---------------------------------------------------------------------
  for (iouter = 0; iouter < n; iouter++) {
    nzv = NONZER;
    sprnvc(n, nzv, nn1, vc, ivc);
    vecset(n, vc, ivc, &nzv, iouter+1, 0.5);
    arow[iouter] = nzv;

    for (ivelt = 0; ivelt < nzv; ivelt++) {
      acol[iouter][ivelt] = ivc[ivelt] - 1;
      aelt[iouter][ivelt] = vc[ivelt];
    }
  }

  //---------------------------------------------------------------------
  // the sum of the outer products of these vectors, duplicates summed
  // (iv is the workspace)
  //---------------------------------------------------------------------
  sparse(a, colidx, rowstr, n, nz, NONZER, arow, acol,
         aelt, firstrow, lastrow,
         iv, RCOND, SHIFT);
}


//---------------------------------------------------------------------
// sparse builds the matrix, in compressed rows, from the list of
// [col, row, element] triples of the outer products; rows range from
// firstrow to lastrow.
//---------------------------------------------------------------------
static void sparse(double a[],
                   int colidx[],
                   int rowstr[],
                   int n,
                   int nz,
                   int nozer,
                   int arow[],
                   int acol[][NONZER+1],
                   double aelt[][NONZER+1],
                   int firstrow,
                   int lastrow,
                   int nzloc[],
                   double rcond,
                   double shift)
{
  int nrows;
  int i, j, j1, j2, nza, k, kk, nzrow, jcol;
  double size, scale, ratio, va;
  logical cont40;

  nrows = lastrow - firstrow + 1;

  //---------------------------------------------------------------------
  // count the triples in each row
  //---------------------------------------------------------------------
  for (j = 0; j < nrows+1; j++) {
    rowstr[j] = 0;
  }

  for (i = 0; i < n; i++) {
    for (nza = 0; nza < arow[i]; nza++) {
      j = acol[i][nza] + 1;
      rowstr[j] = rowstr[j] + arow[i];
    }
  }

  rowstr[0] = 0;
  for (j = 1; j < nrows+1; j++) {
    rowstr[j] = rowstr[j] + rowstr[j-1];
  }
  nza = rowstr[nrows] - 1;

  //---------------------------------------------------------------------
  // rowstr[j] is now the first nonzero of row j
  //---------------------------------------------------------------------
  if (nza > nz) {
    printf("Space for matrix elements exceeded in sparse\n");
    printf("nza, nzmax = %d, %d\n", nza, nz);
    exit(EXIT_FAILURE);
  }

  for (j = 0; j < nrows; j++) {
    for (k = rowstr[j]; k < rowstr[j+1]; k++) {
      a[k] = 0.0;
      colidx[k] = -1;
    }
    nzloc[j] = 0;
  }

  //---------------------------------------------------------------------
  // the values, duplicates summed
  //---------------------------------------------------------------------
  size = 1.0;
  ratio = pow(rcond, (1.0 / (double)(n)));

  for (i = 0; i < n; i++) {
    for (nza = 0; nza < arow[i]; nza++) {
      j = acol[i][nza];

      scale = size * aelt[i][nza];
      for (nzrow = 0; nzrow < arow[i]; nzrow++) {
        jcol = acol[i][nzrow];
        va = aelt[i][nzrow] * scale;

        //---------------------------------------------------------------
        // rcond times the identity, added to bound the smallest
        // eigenvalue from below, and the shift
        //---------------------------------------------------------------
        if (jcol == j && j == i) {
          va = va + rcond - shift;
        }

        cont40 = false;
        for (k = rowstr[j]; k < rowstr[j+1]; k++) {
          if (colidx[k] > jcol) {
            //-----------------------------------------------------------
            // insert colidx here, keeping the row sorted
            //-----------------------------------------------------------
            for (kk = rowstr[j+1]-2; kk >= k; kk--) {
              if (colidx[kk] > -1) {
                a[kk+1]  = a[kk];
                colidx[kk+1] = colidx[kk];
              }
            }
            colidx[k] = jcol;
            a[k]  = 0.0;
            cont40 = true;
            break;
          } else if (colidx[k] == -1) {
            colidx[k] = jcol;
            cont40 = true;
            break;
          } else if (colidx[k] == jcol) {
            //-----------------------------------------------------------
            // a duplicate
            //-----------------------------------------------------------
            nzloc[j] = nzloc[j] + 1;
            cont40 = true;
            break;
          }
        }
        if (cont40 == false) {
          printf("internal error in sparse: i=%d\n", i);
          exit(EXIT_FAILURE);
        }
        a[k] = a[k] + va;
      }
    }
    size = size * ratio;
  }

  //---------------------------------------------------------------------
  // squeeze out the room the duplicates left
  //---------------------------------------------------------------------
  for (j = 1; j < nrows; j++) {
    nzloc[j] = nzloc[j] + nzloc[j-1];
  }

  for (j = 0; j < nrows; j++) {
    if (j > 0) {
      j1 = rowstr[j] - nzloc[j-1];
    } else {
      j1 = 0;
    }
    j2 = rowstr[j+1] - nzloc[j];
    nza = rowstr[j];
    for (k = j1; k < j2; k++) {
      a[k] = a[nza];
      colidx[k] = colidx[nza];
      nza = nza + 1;
    }
  }
  for (j = 1; j < nrows+1; j++) {
    rowstr[j] = rowstr[j] - nzloc[j-1];
  }
  nza = rowstr[nrows] - 1;
}


//---------------------------------------------------------------------
// sprnvc generates a sparse n-vector (v, iv) with nz nonzeros at
// distinct random positions 1 .. n.
//---------------------------------------------------------------------
static void sprnvc(int n, int nz, int nn1, double v[], int iv[])
{
  int nzv, ii, i;
  double vecelt, vecloc;

  nzv = 0;

  while (nzv < nz) {
    vecelt = randlc(&tran, amult);

    //-------------------------------------------------------------------
    // a position between 1 and n, generated portably
    //-------------------------------------------------------------------
    vecloc = randlc(&tran, amult);
    i = icnvrt(vecloc, nn1) + 1;
    if (i > n) continue;

    //-------------------------------------------------------------------
    // skip positions that were generated already
    //-------------------------------------------------------------------
    logical was_gen = false;
    for (ii = 0; ii < nzv; ii++) {
      if (iv[ii] == i) {
        was_gen = true;
        break;
      }
    }
    if (was_gen) continue;
    v[nzv] = vecelt;
    iv[nzv] = i;
    nzv = nzv + 1;
  }
}


//---------------------------------------------------------------------
// an integer from a uniform number in (0, 1): ipwr2 * x, truncated
//---------------------------------------------------------------------
static int icnvrt(double x, int ipwr2)
{
  return (int)(ipwr2 * x);
}


//---------------------------------------------------------------------
// vecset sets the element of index i of the sparse vector (v, iv) to
// val, appending it when the vector does not have that index yet.
//---------------------------------------------------------------------
static void vecset(int n, double v[], int iv[], int *nzv, int i, double val)
{
  int k;
  logical set;

  set = false;
  for (k = 0; k < *nzv; k++) {
    if (iv[k] == i) {
      v[k] = val;
      set  = true;
    }
  }
  if (set == false) {
    v[*nzv]  = val;
    iv[*nzv] = i;
    *nzv     = *nzv + 1;
  }
}
