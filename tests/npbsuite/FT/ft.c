//---------------------------------------------------------------------
// FT benchmark
//---------------------------------------------------------------------
// NPB FT, in the structure of the OpenACC C ports of NPB 3.3: a 3-D
// partial differential equation solved with forward and inverse FFTs.
// The complex arrays are split in real and imaginary parts; they live
// on the device for the whole run (the data region of main) and every
// routine finds them there through its present clause.  Each FFT
// along one dimension runs one grid line per device thread, its
// stages in order, through the work arrays gty1 and gty2.
//---------------------------------------------------------------------

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include "type.h"
#include "npbparams.h"
#include "randdp.h"
#include "timers.h"
#include "print_results.h"
#ifdef _OPENACC
#include <openacc.h>
#endif

#define FFTBLOCKPAD   33
#define FFTBLOCK      32

/* common /blockinfo/ */
static int fftblock, fftblockpad;

static int dims[3];

#define T_total       1
#define T_setup       2
#define T_fft         3
#define T_evolve      4
#define T_checksum    5
#define T_fftx        6
#define T_ffty        7
#define T_fftz        8
#define T_max         8

static logical timers_enabled;
static logical debug;


#define SEED          314159265.0
#define A             1220703125.0
#define PI            3.141592653589793238
#define ALPHA         1.0e-6

//---------------------------------------------------------------------
// the roots of unity of the FFTs, the checksums of the iterations
//---------------------------------------------------------------------
static double u_real[NXP];
static double u_imag[NXP];
static dcomplex sums[NITER_DEFAULT+1];
static int niter;

#define dcmplx(r,i)       (dcomplex){r, i}
#define dcmplx_add(a,b)   (dcomplex){(a).real+(b).real, (a).imag+(b).imag}
#define dcmplx_sub(a,b)   (dcomplex){(a).real-(b).real, (a).imag-(b).imag}
#define dcmplx_mul(a,b)   (dcomplex){((a).real*(b).real)-((a).imag*(b).imag),\
                                     ((a).real*(b).imag)+((a).imag*(b).real)}
#define dcmplx_mul2(a,b)  (dcomplex){(a).real*(b), (a).imag*(b)}
static inline dcomplex dcmplx_div(dcomplex z1, dcomplex z2) {
  double a = z1.real;
  double b = z1.imag;
  double c = z2.real;
  double d = z2.imag;

  double divisor = c*c + d*d;
  double real = (a*c + b*d) / divisor;
  double imag = (b*c - a*d) / divisor;
  dcomplex result = (dcomplex){real, imag};
  return result;
}
#define dcmplx_div2(a,b)  (dcomplex){(a).real/(b), (a).imag/(b)}
#define dcmplx_abs(x)     sqrt(((x).real*(x).real) + ((x).imag*(x).imag))

#define dconjg(x)         (dcomplex){(x).real, -1.0*(x).imag}

//---------------------------------------------------------------------
// the work arrays of the FFTs: one line of the transformed dimension
// per thread
//---------------------------------------------------------------------
static double gty1_real[MAXDIM][MAXDIM][MAXDIM];
static double gty1_imag[MAXDIM][MAXDIM][MAXDIM];
static double gty2_real[MAXDIM][MAXDIM][MAXDIM];
static double gty2_imag[MAXDIM][MAXDIM][MAXDIM];

//---------------------------------------------------------------------
// u0, u1 are the main arrays of the problem, stored as one-dimensional
// arrays with a padded first dimension (d1+1):
//  - u0 holds the transformed initial condition
//  - u1 is the working array
//  - twiddle holds the exponents of the time evolution operator
//---------------------------------------------------------------------
/* common /bigarrays/ */
double u0_real[NTOTALP];
double u0_imag[NTOTALP];
double u1_real[NTOTALP];
double u1_imag[NTOTALP];
double twiddle[NTOTALP];


//---------------------------------------------------------------------
static void init_ui(int d1, int d2, int d3);
static void evolve(int d1, int d2, int d3);
static void compute_initial_conditions(int d1, int d2, int d3);
static double ipow46(double a, int exponent);
static void setup();
static void compute_indexmap(int d1, int d2, int d3);
static void print_timers();
static void fft(int dir);
static void cffts1(int is, int d1, int d2, int d3);
static void cffts2(int is, int d1, int d2, int d3);
static void cffts3(int is, int d1, int d2, int d3);
static void fft_init(int n);
static int ilog2(int n);
static void checksum(int i, int d1, int d2, int d3);
static void verify(int d1, int d2, int d3, int nt,
                   logical *verified, char *Class);
//---------------------------------------------------------------------


int main(int argc, char *argv[])
{
  int i;
  int iter;
  double total_time, mflops;
  logical verified;
  char Class;

#ifdef _OPENACC
  acc_init(acc_device_default);
#endif

  //---------------------------------------------------------------------
  // Run the entire problem once to make sure all data is touched: this
  // reduces the start-up costs of such a short benchmark.
  //---------------------------------------------------------------------
  for (i = 1; i <= T_max; i++) {
    timer_clear(i);
  }
  setup();
#pragma acc data create(u0_real, u0_imag, u1_real, u1_imag, u_real, u_imag, \
                        twiddle, gty1_real, gty1_imag, gty2_real, gty2_imag)
{
  init_ui(dims[0], dims[1], dims[2]);
  compute_indexmap(dims[0], dims[1], dims[2]);
  compute_initial_conditions(dims[0], dims[1], dims[2]);
  fft_init(dims[0]);
  fft(1);

  //---------------------------------------------------------------------
  // Start over from the beginning: all the operations are timed.
  //---------------------------------------------------------------------
  for (i = 1; i <= T_max; i++) {
    timer_clear(i);
  }

  timer_start(T_total);
  if (timers_enabled) timer_start(T_setup);

  compute_indexmap(dims[0], dims[1], dims[2]);

  compute_initial_conditions(dims[0], dims[1], dims[2]);

  fft_init(dims[0]);

  if (timers_enabled) timer_stop(T_setup);
  if (timers_enabled) timer_start(T_fft);
  fft(1);
  if (timers_enabled) timer_stop(T_fft);

  for (iter = 1; iter <= niter; iter++) {
    if (timers_enabled) timer_start(T_evolve);
    evolve(dims[0], dims[1], dims[2]);
    if (timers_enabled) timer_stop(T_evolve);
    if (timers_enabled) timer_start(T_fft);
    fft(-1);
    if (timers_enabled) timer_stop(T_fft);
    if (timers_enabled) timer_start(T_checksum);
    checksum(iter, dims[0], dims[1], dims[2]);
    if (timers_enabled) timer_stop(T_checksum);
  }

  verify(NX, NY, NZ, niter, &verified, &Class);
  timer_stop(T_total);
  total_time = timer_read(T_total);
} /* end acc data */

  if (total_time != 0.0) {
    mflops = 1.0e-6 * (double)NTOTAL *
            (14.8157 + 7.19641 * log((double)NTOTAL)
            + (5.23518 + 7.21113 * log((double)NTOTAL)) * niter)
            / total_time;
  } else {
    mflops = 0.0;
  }
  print_results("FT", Class, NX, NY, NZ, niter,
                total_time, mflops, "          floating point", verified,
                NPBVERSION, COMPILETIME, CS1, CS2, CS3, CS4, CS5, CS6, CS7);
  if (timers_enabled) print_timers();

#ifdef _OPENACC
  acc_shutdown(acc_device_default);
#endif
  return 0;
}


//---------------------------------------------------------------------
// touch all the big data
//---------------------------------------------------------------------
static void init_ui(int d1, int d2, int d3)
{
  int i, j, k;

#pragma acc parallel num_gangs(d3) num_workers(8) vector_length(64) \
                     present(u0_real, u0_imag, u1_real, u1_imag, twiddle)
  {
    #pragma acc loop gang
    for (k = 0; k < d3; k++) {
      #pragma acc loop worker
      for (j = 0; j < d2; j++) {
        #pragma acc loop vector
        for (i = 0; i < d1; i++) {
          u0_real[k*d2*(d1+1) + j*(d1+1) + i] = 0.0;
          u0_imag[k*d2*(d1+1) + j*(d1+1) + i] = 0.0;
          u1_real[k*d2*(d1+1) + j*(d1+1) + i] = 0.0;
          u1_imag[k*d2*(d1+1) + j*(d1+1) + i] = 0.0;
          twiddle[k*d2*(d1+1) + j*(d1+1) + i] = 0.0;
        }
      }
    }
  }
}


//---------------------------------------------------------------------
// evolve u0 -> u1 (t time steps) in fourier space
//---------------------------------------------------------------------
static void evolve(int d1, int d2, int d3)
{
  int i, j, k;

#pragma acc parallel num_gangs(d3) num_workers(8) vector_length(64) \
                     present(u0_real, u0_imag, u1_real, u1_imag, twiddle)
  {
    #pragma acc loop gang
    for (k = 0; k < d3; k++) {
      #pragma acc loop worker
      for (j = 0; j < d2; j++) {
        #pragma acc loop vector
        for (i = 0; i < d1; i++) {
          u0_real[k*d2*(d1+1) + j*(d1+1) + i] = u0_real[k*d2*(d1+1) + j*(d1+1) + i]
                                              * twiddle[k*d2*(d1+1) + j*(d1+1) + i];
          u0_imag[k*d2*(d1+1) + j*(d1+1) + i] = u0_imag[k*d2*(d1+1) + j*(d1+1) + i]
                                              * twiddle[k*d2*(d1+1) + j*(d1+1) + i];

          u1_real[k*d2*(d1+1) + j*(d1+1) + i] = u0_real[k*d2*(d1+1) + j*(d1+1) + i];
          u1_imag[k*d2*(d1+1) + j*(d1+1) + i] = u0_imag[k*d2*(d1+1) + j*(d1+1) + i];
        }
      }
    }
  }
}


//---------------------------------------------------------------------
// Fill in array u1 with initial conditions from the random number
// generator: on the host, one z plane after another, then copied to
// the device
//---------------------------------------------------------------------
static void compute_initial_conditions(int d1, int d2, int d3)
{
  int k, j, i;
  double x0, start, an, dummy, starts[NZ];
  const double r23 = 1.1920928955078125e-07;
  const double r46 = r23 * r23;
  const double t23 = 8.388608e+06;
  const double t46 = t23 * t23;
  double t1, t2, t3, t4, a1, a2, x1, x2, z;

  start = SEED;
  //---------------------------------------------------------------------
  // Jump to the starting element for our first plane.
  //---------------------------------------------------------------------
  an = ipow46(A, 0);
  dummy = randlc(&start, an);
  an = ipow46(A, 2*NX*NY);

  starts[0] = start;
  for (k = 1; k < d3; k++) {
    dummy = randlc(&start, an);
    starts[k] = start;
  }

  //---------------------------------------------------------------------
  // Go through by z planes filling in one square at a time: the
  // numbers of vranlc(2*NX, &x0, A, ...) alternate between the real and
  // the imaginary part.
  //---------------------------------------------------------------------
  for (k = 0; k < d3; k++) {
    x0 = starts[k];
    for (j = 0; j < d2; j++) {
      t1 = r23*A;
      a1 = (int)t1;
      a2 = A - t23*a1;

      for (i = 0; i < 2*NX; i++) {
        t1 = r23 * x0;
        x1 = (int)t1;
        x2 = x0 - t23*x1;
        t1 = a1 * x2 + a2 * x1;
        t2 = (int) (r23 * t1);
        z = t1 - t23 * t2;
        t3 = t23 * z + a2 * x2;
        t4 = (int) (r46 * t3) ;
        x0 = t3 - t46 * t4;
        if (i%2 == 0)
          u1_real[k*d2*(d1+1) + j*(d1+1) + i/2] = r46*x0;
        else
          u1_imag[k*d2*(d1+1) + j*(d1+1) + i/2] = r46*x0;
      }
    }
  }
#pragma acc update device(u1_real, u1_imag)
}


//---------------------------------------------------------------------
// compute a^exponent mod 2^46
//---------------------------------------------------------------------
static double ipow46(double a, int exponent)
{
  double result, dummy, q, r;
  int n, n2;

  //---------------------------------------------------------------------
  // Use
  //   a^n = a^(n/2)*a^(n/2) if n even else
  //   a^n = a*a^(n-1)       if n odd
  //---------------------------------------------------------------------
  result = 1;
  if (exponent == 0) return result;
  q = a;
  r = 1;
  n = exponent;

  while (n > 1) {
    n2 = n / 2;
    if (n2 * 2 == n) {
      dummy = randlc(&q, q);
      n = n2;
    } else {
      dummy = randlc(&r, q);
      n = n-1;
    }
  }
  dummy = randlc(&r, q);
  result = r;
  return result;
}


static void setup()
{
  FILE *fp;
  debug = false;

  if ((fp = fopen("timer.flag", "r")) != NULL) {
    timers_enabled = true;
    fclose(fp);
  } else {
    timers_enabled = false;
  }

  niter = NITER_DEFAULT;

  printf("\n\n NAS Parallel Benchmarks (NPB3.3-ACC-C) - FT Benchmark\n\n");
  printf(" Size                : %4dx%4dx%4d\n", NX, NY, NZ);
  printf(" Iterations                  :%7d\n", niter);
  printf("\n");

  dims[0] = NX;
  dims[1] = NY;
  dims[2] = NZ;

  //---------------------------------------------------------------------
  // the blocking of the sequential FFTs (unused by this version, whose
  // device threads each transform one line)
  //---------------------------------------------------------------------
  fftblock = FFTBLOCK;
  fftblockpad = FFTBLOCKPAD;
}


//---------------------------------------------------------------------
// compute function from local (i,j,k) to ibar^2+jbar^2+kbar^2
// for time evolution exponent.
//---------------------------------------------------------------------
static void compute_indexmap(int d1, int d2, int d3)
{
  int i, j, k, kk, kk2, jj, kj2, ii;
  double ap;

  //---------------------------------------------------------------------
  // basically we want to convert the fortran indices
  //   1 2 3 4 5 6 7 8
  // to
  //   0 1 2 3 -4 -3 -2 -1
  // The following magic formula does the trick:
  // mod(i-1+n/2, n) - n/2
  //---------------------------------------------------------------------

  ap = -4.0 * ALPHA * PI * PI;

#pragma acc parallel num_gangs(d3) num_workers(8) vector_length(64) present(twiddle)
  {
    #pragma acc loop gang
    for (k = 0; k < d3; k++) {
      #pragma acc loop worker
      for (j = 0; j < d2; j++) {
        #pragma acc loop vector
        for (i = 0; i < d1; i++) {
          kk = ((k + NZ/2) % NZ) - NZ/2;
          kk2 = kk*kk;
          jj = ((j + NY/2) % NY) - NY/2;
          kj2 = jj*jj + kk2;
          ii = ((i + NX/2) % NX) - NX/2;
          twiddle[k*d2*(d1+1) + j*(d1+1) + i] = exp(ap * (double)(ii*ii+kj2));
        }
      }
    }
  }
}


static void print_timers()
{
  int i;
  double t, t_m;
  char *tstrings[T_max+1];
  tstrings[1] = "          total ";
  tstrings[2] = "          setup ";
  tstrings[3] = "            fft ";
  tstrings[4] = "         evolve ";
  tstrings[5] = "       checksum ";
  tstrings[6] = "           fftx ";
  tstrings[7] = "           ffty ";
  tstrings[8] = "           fftz ";

  t_m = timer_read(T_total);
  if (t_m <= 0.0) t_m = 1.00;
  for (i = 1; i <= T_max; i++) {
    t = timer_read(i);
    printf(" timer %2d(%16s) :%9.4f (%6.2f%%)\n",
        i, tstrings[i], t, t*100.0/t_m);
  }
}


//---------------------------------------------------------------------
// compute the roots-of-unity array that will be used for subsequent
// FFTs, on the device
//---------------------------------------------------------------------
static void fft_init(int n)
{
  int m, ku, i, j, ln;
  double t, ti;

  //---------------------------------------------------------------------
  // Initialize the U array with sines and cosines in a manner that
  // permits stride one access at each FFT iteration.
  //---------------------------------------------------------------------
  m = ilog2(n);

#pragma acc parallel num_gangs(1) num_workers(1) vector_length(1) present(u_real, u_imag)
  {
    u_real[0] = m;
    u_imag[0] = 0.0;
  }
  ku = 2;
  ln = 1;

  for (j = 1; j <= m; j++) {
    t = PI / ln;

#pragma acc parallel num_gangs((ln+63)/64) vector_length(64) present(u_real, u_imag)
    {
      #pragma acc loop gang vector
      for (i = 0; i <= ln - 1; i++) {
        ti = i * t;
        u_real[i+ku-1] = (double)cos(ti);
        u_imag[i+ku-1] = (double)sin(ti);
      }
    }

    ku = ku + ln;
    ln = 2 * ln;
  }
}


//---------------------------------------------------------------------
// the 3-D FFT of u1: forward (dir = 1) into u0, inverse (dir = -1) in
// place
//---------------------------------------------------------------------
static void fft(int dir)
{
  if (dir == 1) {
    cffts1(1, dims[0], dims[1], dims[2]);
    cffts2(1, dims[0], dims[1], dims[2]);
    cffts3(1, dims[0], dims[1], dims[2]);
  } else {
    cffts3(-1, dims[0], dims[1], dims[2]);
    cffts2(-1, dims[0], dims[1], dims[2]);
    cffts1(-1, dims[0], dims[1], dims[2]);
  }
}

//---------------------------------------------------------------------
// the FFTs along the first dimension of u1, in place: one line of i per
// (k, j) thread
//---------------------------------------------------------------------
static void cffts1(int is, int d1, int d2, int d3)
{
  int logd1;
  int i, j, k;
  int l, j1, i1, k1;
  int n1, li, lj, lk, ku, i11, i12, i21, i22;
  double uu1_real, x11_real, x21_real;
  double uu1_imag, x11_imag, x21_imag;
  double uu2_real, x12_real, x22_real;
  double uu2_imag, x12_imag, x22_imag;
  double temp_real, temp2_real;
  double temp_imag, temp2_imag;

  logd1 = ilog2(d1);

  if (timers_enabled) timer_start(T_fftx);
#pragma acc parallel num_gangs(d3) vector_length(64) \
                     present(gty1_real, gty1_imag, gty2_real, gty2_imag, \
                             u1_real, u1_imag, u_real, u_imag)
  {
    #pragma acc loop gang
    for (k = 0; k < d3; k++) {
      #pragma acc loop vector
      for (j = 0; j < d2; j++) {
        for (i = 0; i < d1; i++) {
          gty1_real[k][i][j] = u1_real[k*d2*(d1+1) + j*(d1+1) + i];
          gty1_imag[k][i][j] = u1_imag[k*d2*(d1+1) + j*(d1+1) + i];
        }

        //---------------------------------------------------------------
        // the stages of the Stockham FFT, two at a time: gty1 -> gty2
        // -> gty1
        //---------------------------------------------------------------
        for (l = 1; l <= logd1; l += 2) {
          n1 = d1 / 2;
          lk = 1 << (l - 1);
          li = 1 << (logd1 - l);
          lj = 2 * lk;
          ku = li;

          //-------------------------------------------------------------
          // stage l: gty1 -> gty2
          //-------------------------------------------------------------
          for (i1 = 0; i1 <= li - 1; i1++) {
            for (k1 = 0; k1 <= lk - 1; k1++) {
              i11 = i1 * lk;
              i12 = i11 + n1;
              i21 = i1 * lj;
              i22 = i21 + lk;

              uu1_real = u_real[ku+i1];
              if (is >= 1) {
                uu1_imag = u_imag[ku+i1];
              } else {
                uu1_imag = -1.0*u_imag[ku+i1];
              }

              x11_real = gty1_real[k][i11+k1][j];
              x11_imag = gty1_imag[k][i11+k1][j];

              x21_real = gty1_real[k][i12+k1][j];
              x21_imag = gty1_imag[k][i12+k1][j];

              gty2_real[k][i21+k1][j] = x11_real + x21_real;
              gty2_imag[k][i21+k1][j] = x11_imag + x21_imag;

              temp_real = x11_real - x21_real;
              temp_imag = x11_imag - x21_imag;
              gty2_real[k][i22+k1][j] = (uu1_real)*(temp_real) - (uu1_imag)*(temp_imag);
              gty2_imag[k][i22+k1][j] = (uu1_real)*(temp_imag) + (uu1_imag)*(temp_real);
            }
          }

          if (l == logd1) {
            for (j1 = 0; j1 < d1; j1++) {
              gty1_real[k][j1][j] = gty2_real[k][j1][j];
              gty1_imag[k][j1][j] = gty2_imag[k][j1][j];
            }
          } else {
            n1 = d1 / 2;
            lk = 1 << (l+1 - 1);
            li = 1 << (logd1 - (l+1));
            lj = 2 * lk;
            ku = li;

            //-------------------------------------------------------------
            // stage l: gty2 -> gty1
            //-------------------------------------------------------------
            for (i1 = 0; i1 <= li - 1; i1++) {
              for (k1 = 0; k1 <= lk - 1; k1++) {
                i11 = i1 * lk;
                i12 = i11 + n1;
                i21 = i1 * lj;
                i22 = i21 + lk;

                uu2_real = u_real[ku+i1];
                if (is >= 1) {
                  uu2_imag = u_imag[ku+i1];
                } else {
                  uu2_imag = -1.0*u_imag[ku+i1];
                }

                x12_real = gty2_real[k][i11+k1][j];
                x12_imag = gty2_imag[k][i11+k1][j];

                x22_real = gty2_real[k][i12+k1][j];
                x22_imag = gty2_imag[k][i12+k1][j];

                gty1_real[k][i21+k1][j] = x12_real + x22_real;
                gty1_imag[k][i21+k1][j] = x12_imag + x22_imag;

                temp2_real = x12_real - x22_real;
                temp2_imag = x12_imag - x22_imag;
                gty1_real[k][i22+k1][j] = (uu2_real)*(temp2_real) - (uu2_imag)*(temp2_imag);
                gty1_imag[k][i22+k1][j] = (uu2_real)*(temp2_imag) + (uu2_imag)*(temp2_real);
              }
            }
          }
        }

        for (i = 0; i < d1; i++) {
          u1_real[k*d2*(d1+1) + j*(d1+1) + i] = gty1_real[k][i][j];
          u1_imag[k*d2*(d1+1) + j*(d1+1) + i] = gty1_imag[k][i][j];
        }
      }
    }
  } /* end acc parallel */
  if (timers_enabled) timer_stop(T_fftx);
}

//---------------------------------------------------------------------
// the FFTs along the second dimension of u1, in place: one line of j per
// (k, i) thread
//---------------------------------------------------------------------
static void cffts2(int is, int d1, int d2, int d3)
{
  int logd2;
  int i, j, k;
  int l, j1, i1, k1;
  int n1, li, lj, lk, ku, i11, i12, i21, i22;
  double uu1_real, x11_real, x21_real;
  double uu1_imag, x11_imag, x21_imag;
  double uu2_real, x12_real, x22_real;
  double uu2_imag, x12_imag, x22_imag;
  double temp_real, temp2_real;
  double temp_imag, temp2_imag;

  logd2 = ilog2(d2);

  if (timers_enabled) timer_start(T_ffty);
#pragma acc parallel num_gangs(d3) vector_length(64) \
                     present(gty1_real, gty1_imag, gty2_real, gty2_imag, \
                             u1_real, u1_imag, u_real, u_imag)
  {
    #pragma acc loop gang
    for (k = 0; k < d3; k++) {
      #pragma acc loop vector
      for (i = 0; i < d1; i++) {
        for (j = 0; j < d2; j++) {
          gty1_real[k][j][i] = u1_real[k*d2*(d1+1) + j*(d1+1) + i];
          gty1_imag[k][j][i] = u1_imag[k*d2*(d1+1) + j*(d1+1) + i];
        }

        //---------------------------------------------------------------
        // the stages of the Stockham FFT, two at a time: gty1 -> gty2
        // -> gty1
        //---------------------------------------------------------------
        for (l = 1; l <= logd2; l += 2) {
          n1 = d2 / 2;
          lk = 1 << (l - 1);
          li = 1 << (logd2 - l);
          lj = 2 * lk;
          ku = li;

          //-------------------------------------------------------------
          // stage l: gty1 -> gty2
          //-------------------------------------------------------------
          for (i1 = 0; i1 <= li - 1; i1++) {
            for (k1 = 0; k1 <= lk - 1; k1++) {
              i11 = i1 * lk;
              i12 = i11 + n1;
              i21 = i1 * lj;
              i22 = i21 + lk;

              uu1_real = u_real[ku+i1];
              if (is >= 1) {
                uu1_imag = u_imag[ku+i1];
              } else {
                uu1_imag = -1.0*u_imag[ku+i1];
              }

              x11_real = gty1_real[k][i11+k1][i];
              x11_imag = gty1_imag[k][i11+k1][i];

              x21_real = gty1_real[k][i12+k1][i];
              x21_imag = gty1_imag[k][i12+k1][i];

              gty2_real[k][i21+k1][i] = x11_real + x21_real;
              gty2_imag[k][i21+k1][i] = x11_imag + x21_imag;

              temp_real = x11_real - x21_real;
              temp_imag = x11_imag - x21_imag;
              gty2_real[k][i22+k1][i] = (uu1_real)*(temp_real) - (uu1_imag)*(temp_imag);
              gty2_imag[k][i22+k1][i] = (uu1_real)*(temp_imag) + (uu1_imag)*(temp_real);
            }
          }

          if (l == logd2) {
            for (j1 = 0; j1 < d2; j1++) {
              gty1_real[k][j1][i] = gty2_real[k][j1][i];
              gty1_imag[k][j1][i] = gty2_imag[k][j1][i];
            }
          } else {
            n1 = d2 / 2;
            lk = 1 << (l+1 - 1);
            li = 1 << (logd2 - (l+1));
            lj = 2 * lk;
            ku = li;

            //-------------------------------------------------------------
            // stage l: gty2 -> gty1
            //-------------------------------------------------------------
            for (i1 = 0; i1 <= li - 1; i1++) {
              for (k1 = 0; k1 <= lk - 1; k1++) {
                i11 = i1 * lk;
                i12 = i11 + n1;
                i21 = i1 * lj;
                i22 = i21 + lk;

                uu2_real = u_real[ku+i1];
                if (is >= 1) {
                  uu2_imag = u_imag[ku+i1];
                } else {
                  uu2_imag = -1.0*u_imag[ku+i1];
                }

                x12_real = gty2_real[k][i11+k1][i];
                x12_imag = gty2_imag[k][i11+k1][i];

                x22_real = gty2_real[k][i12+k1][i];
                x22_imag = gty2_imag[k][i12+k1][i];

                gty1_real[k][i21+k1][i] = x12_real + x22_real;
                gty1_imag[k][i21+k1][i] = x12_imag + x22_imag;

                temp2_real = x12_real - x22_real;
                temp2_imag = x12_imag - x22_imag;
                gty1_real[k][i22+k1][i] = (uu2_real)*(temp2_real) - (uu2_imag)*(temp2_imag);
                gty1_imag[k][i22+k1][i] = (uu2_real)*(temp2_imag) + (uu2_imag)*(temp2_real);
              }
            }
          }
        }

        for (j = 0; j < d2; j++) {
          u1_real[k*d2*(d1+1) + j*(d1+1) + i] = gty1_real[k][j][i];
          u1_imag[k*d2*(d1+1) + j*(d1+1) + i] = gty1_imag[k][j][i];
        }
      }
    }
  } /* end acc parallel */
  if (timers_enabled) timer_stop(T_ffty);
}

//---------------------------------------------------------------------
// the FFTs along the third dimension of u1: one line of k per (j, i)
// thread; the forward transform leaves its result in u0, the inverse one
// in u1
//---------------------------------------------------------------------
static void cffts3(int is, int d1, int d2, int d3)
{
  int logd3;
  int i, j, k;
  int l, j1, i1, k1;
  int n1, li, lj, lk, ku, i11, i12, i21, i22;
  double uu1_real, x11_real, x21_real;
  double uu1_imag, x11_imag, x21_imag;
  double uu2_real, x12_real, x22_real;
  double uu2_imag, x12_imag, x22_imag;
  double temp_real, temp2_real;
  double temp_imag, temp2_imag;

  logd3 = ilog2(d3);

  if (timers_enabled) timer_start(T_fftz);
#pragma acc parallel num_gangs(d2) vector_length(64) \
                     present(gty1_real, gty1_imag, gty2_real, gty2_imag, \
                             u0_real, u0_imag, u1_real, u1_imag, u_real, u_imag)
  {
    #pragma acc loop gang
    for (j = 0; j < d2; j++) {
      #pragma acc loop vector
      for (i = 0; i < d1; i++) {
        for (k = 0; k < d3; k++) {
          gty1_real[j][k][i] = u1_real[k*d2*(d1+1) + j*(d1+1) + i];
          gty1_imag[j][k][i] = u1_imag[k*d2*(d1+1) + j*(d1+1) + i];
        }

        //---------------------------------------------------------------
        // the stages of the Stockham FFT, two at a time: gty1 -> gty2
        // -> gty1
        //---------------------------------------------------------------
        for (l = 1; l <= logd3; l += 2) {
          n1 = d3 / 2;
          lk = 1 << (l - 1);
          li = 1 << (logd3 - l);
          lj = 2 * lk;
          ku = li;

          //-------------------------------------------------------------
          // stage l: gty1 -> gty2
          //-------------------------------------------------------------
          for (i1 = 0; i1 <= li - 1; i1++) {
            for (k1 = 0; k1 <= lk - 1; k1++) {
              i11 = i1 * lk;
              i12 = i11 + n1;
              i21 = i1 * lj;
              i22 = i21 + lk;

              uu1_real = u_real[ku+i1];
              if (is >= 1) {
                uu1_imag = u_imag[ku+i1];
              } else {
                uu1_imag = -1.0*u_imag[ku+i1];
              }

              x11_real = gty1_real[j][i11+k1][i];
              x11_imag = gty1_imag[j][i11+k1][i];

              x21_real = gty1_real[j][i12+k1][i];
              x21_imag = gty1_imag[j][i12+k1][i];

              gty2_real[j][i21+k1][i] = x11_real + x21_real;
              gty2_imag[j][i21+k1][i] = x11_imag + x21_imag;

              temp_real = x11_real - x21_real;
              temp_imag = x11_imag - x21_imag;
              gty2_real[j][i22+k1][i] = (uu1_real)*(temp_real) - (uu1_imag)*(temp_imag);
              gty2_imag[j][i22+k1][i] = (uu1_real)*(temp_imag) + (uu1_imag)*(temp_real);
            }
          }

          if (l == logd3) {
            for (j1 = 0; j1 < d3; j1++) {
              gty1_real[j][j1][i] = gty2_real[j][j1][i];
              gty1_imag[j][j1][i] = gty2_imag[j][j1][i];
            }
          } else {
            n1 = d3 / 2;
            lk = 1 << (l+1 - 1);
            li = 1 << (logd3 - (l+1));
            lj = 2 * lk;
            ku = li;

            //-------------------------------------------------------------
            // stage l: gty2 -> gty1
            //-------------------------------------------------------------
            for (i1 = 0; i1 <= li - 1; i1++) {
              for (k1 = 0; k1 <= lk - 1; k1++) {
                i11 = i1 * lk;
                i12 = i11 + n1;
                i21 = i1 * lj;
                i22 = i21 + lk;

                uu2_real = u_real[ku+i1];
                if (is >= 1) {
                  uu2_imag = u_imag[ku+i1];
                } else {
                  uu2_imag = -1.0*u_imag[ku+i1];
                }

                x12_real = gty2_real[j][i11+k1][i];
                x12_imag = gty2_imag[j][i11+k1][i];

                x22_real = gty2_real[j][i12+k1][i];
                x22_imag = gty2_imag[j][i12+k1][i];

                gty1_real[j][i21+k1][i] = x12_real + x22_real;
                gty1_imag[j][i21+k1][i] = x12_imag + x22_imag;

                temp2_real = x12_real - x22_real;
                temp2_imag = x12_imag - x22_imag;
                gty1_real[j][i22+k1][i] = (uu2_real)*(temp2_real) - (uu2_imag)*(temp2_imag);
                gty1_imag[j][i22+k1][i] = (uu2_real)*(temp2_imag) + (uu2_imag)*(temp2_real);
              }
            }
          }
        }

        if (is >= 1) {
          for (k = 0; k < d3; k++) {
            u0_real[k*d2*(d1+1) + j*(d1+1) + i] = gty1_real[j][k][i];
            u0_imag[k*d2*(d1+1) + j*(d1+1) + i] = gty1_imag[j][k][i];
          }
        } else {
          for (k = 0; k < d3; k++) {
            u1_real[k*d2*(d1+1) + j*(d1+1) + i] = gty1_real[j][k][i];
            u1_imag[k*d2*(d1+1) + j*(d1+1) + i] = gty1_imag[j][k][i];
          }
        }
      }
    }
  } /* end acc parallel */
  if (timers_enabled) timer_stop(T_fftz);
}


static int ilog2(int n)
{
  int nn, lg;
  if (n == 1) return 0;
  lg = 1;
  nn = 2;
  while (nn < n) {
    nn = nn*2;
    lg = lg+1;
  }
  return lg;
}


//---------------------------------------------------------------------
// the checksum of an iteration: 1024 elements of u1, summed on the
// device
//---------------------------------------------------------------------
static void checksum(int i, int d1, int d2, int d3)
{
  int j, q, r, s;
  double temp1, temp2;
  dcomplex chk;

  chk.real = 0.0;
  chk.imag = 0.0;

  temp1 = 0.0;
  temp2 = 0.0;

#pragma acc parallel num_gangs(1) num_workers(1) vector_length(1024) \
                     present(u1_real, u1_imag)
  {
    #pragma acc loop gang worker vector reduction(+:temp1, temp2)
    for (j = 1; j <= 1024; j++) {
      q = j % NX;
      r = 3*j % NY;
      s = 5*j % NZ;
      temp1 = temp1 + u1_real[s*d2*(d1+1) + r*(d1+1) + q];
      temp2 = temp2 + u1_imag[s*d2*(d1+1) + r*(d1+1) + q];
    }
  }
  chk.real = temp1;
  chk.imag = temp2;

  chk = dcmplx_div2(chk, (double)(NTOTAL));

  printf(" T =%5d     Checksum =%22.12E%22.12E\n", i, chk.real, chk.imag);
  sums[i] = chk;
}


static void verify(int d1, int d2, int d3, int nt,
                   logical *verified, char *Class)
{
  int i;
  double err, epsilon;

  //---------------------------------------------------------------------
  // Reference checksums
  //---------------------------------------------------------------------
  dcomplex cexpd[25+1];

  *Class = 'U';

  epsilon = 1.0e-12;
  *verified = false;

  if (d1 == 64 && d2 == 64 && d3 == 64 && nt == 6) {
    //-------------------------------------------------------------------
    //   Class S size reference checksums
    //-------------------------------------------------------------------
    *Class = 'S';
    cexpd[1] = dcmplx(554.6087004964, 484.5363331978);
    cexpd[2] = dcmplx(554.6385409189, 486.5304269511);
    cexpd[3] = dcmplx(554.6148406171, 488.3910722336);
    cexpd[4] = dcmplx(554.5423607415, 490.1273169046);
    cexpd[5] = dcmplx(554.4255039624, 491.7475857993);
    cexpd[6] = dcmplx(554.2683411902, 493.2597244941);
  } else if (d1 == 128 && d2 == 128 && d3 == 32 && nt == 6) {
    //-------------------------------------------------------------------
    //   Class W size reference checksums
    //-------------------------------------------------------------------
    *Class = 'W';
    cexpd[1] = dcmplx(567.3612178944, 529.3246849175);
    cexpd[2] = dcmplx(563.1436885271, 528.2149986629);
    cexpd[3] = dcmplx(559.4024089970, 527.0996558037);
    cexpd[4] = dcmplx(556.0698047020, 526.0027904925);
    cexpd[5] = dcmplx(553.0898991250, 524.9400845633);
    cexpd[6] = dcmplx(550.4159734538, 523.9212247086);
  } else if (d1 == 256 && d2 == 256 && d3 == 128 && nt == 6) {
    //-------------------------------------------------------------------
    //   Class A size reference checksums
    //-------------------------------------------------------------------
    *Class = 'A';
    cexpd[1] = dcmplx(504.6735008193, 511.4047905510);
    cexpd[2] = dcmplx(505.9412319734, 509.8809666433);
    cexpd[3] = dcmplx(506.9376896287, 509.8144042213);
    cexpd[4] = dcmplx(507.7892868474, 510.1336130759);
    cexpd[5] = dcmplx(508.5233095391, 510.4914655194);
    cexpd[6] = dcmplx(509.1487099959, 510.7917842803);
  }

  if (*Class != 'U') {
    *verified = true;
    for (i = 1; i <= nt; i++) {
      err = dcmplx_abs(dcmplx_div(dcmplx_sub(sums[i], cexpd[i]),
                                  cexpd[i]));
      if (!(err <= epsilon)) {
        *verified = false;
        break;
      }
    }
  }

  if (*Class != 'U') {
    if (*verified) {
      printf(" VERIFICATION SUCCESSFUL\n");
    } else {
      printf(" VERIFICATION FAILED\n");
    }
  }
  printf(" class = %c\n", *Class);
}
