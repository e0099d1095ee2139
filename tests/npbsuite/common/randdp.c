//---------------------------------------------------------------------
// The pseudorandom number generator of the NAS Parallel Benchmarks:
//
//   x_{k+1} = a x_k  (mod 2^46)
//
// with 0 < x_k < 2^46 and 0 < a < 2^46.  The arithmetic is done in
// double precision on two 23-bit halves, so that every product is
// exact on any machine with at least 48 mantissa bits.
//---------------------------------------------------------------------

#include "randdp.h"

//---------------------------------------------------------------------
// randlc returns 2^(-46) * x_{k+1}, a uniform number in (0, 1), and
// replaces *x by x_{k+1}.
//---------------------------------------------------------------------
double randlc( double *x, double a )
{
  const double r23 = 1.1920928955078125e-07;  // 0.5^23
  const double r46 = r23 * r23;
  const double t23 = 8.388608e+06;            // 2^23
  const double t46 = t23 * t23;

  double t1, t2, t3, t4, a1, a2, x1, x2, z;
  double r;

  // a = 2^23 * a1 + a2
  t1 = r23 * a;
  a1 = (int) t1;
  a2 = a - t23 * a1;

  // x = 2^23 * x1 + x2;  z = a1 * x2 + a2 * x1 (mod 2^23);
  // x = 2^23 * z + a2 * x2 (mod 2^46)
  t1 = r23 * (*x);
  x1 = (int) t1;
  x2 = *x - t23 * x1;
  t1 = a1 * x2 + a2 * x1;
  t2 = (int) (r23 * t1);
  z = t1 - t23 * t2;
  t3 = t23 * z + a2 * x2;
  t4 = (int) (r46 * t3);
  *x = t3 - t46 * t4;
  r = r46 * (*x);

  return r;
}


//---------------------------------------------------------------------
// vranlc stores the next n numbers of the sequence in y[0..n-1] and
// leaves the last seed in *x.
//---------------------------------------------------------------------
void vranlc( int n, double *x, double a, double y[] )
{
  const double r23 = 1.1920928955078125e-07;
  const double r46 = r23 * r23;
  const double t23 = 8.388608e+06;
  const double t46 = t23 * t23;

  double t1, t2, t3, t4, a1, a2, x1, x2, z;
  int i;

  t1 = r23 * a;
  a1 = (int) t1;
  a2 = a - t23 * a1;

  for ( i = 0; i < n; i++ ) {
    t1 = r23 * (*x);
    x1 = (int) t1;
    x2 = *x - t23 * x1;
    t1 = a1 * x2 + a2 * x1;
    t2 = (int) (r23 * t1);
    z = t1 - t23 * t2;
    t3 = t23 * z + a2 * x2;
    t4 = (int) (r46 * t3);
    *x = t3 - t46 * t4;
    y[i] = r46 * (*x);
  }
}
