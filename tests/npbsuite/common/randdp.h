#ifndef __RANDDP_H__
#define __RANDDP_H__

/* The NPB linear congruential generator x_{k+1} = a x_k (mod 2^46). */
double randlc( double *x, double a );
void vranlc( int n, double *x, double a, double y[] );

#endif //__RANDDP_H__
