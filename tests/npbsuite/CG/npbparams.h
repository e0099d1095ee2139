/* CLASS = S, W or A */
/*
   The parameters of NPB's classes S, W and A of CG (what NPB's setparams
   writes for a class).
*/
/*
   The class is chosen at compile time: -DCLASS_W or -DCLASS_A (NPB's
   classes W and A, the values NPB's setparams writes for them), class S
   without either.  benches/npb-classes.sh builds and times every class.
*/
#if defined(CLASS_A)
#define CLASS 'A'
#define NA     14000
#define NONZER 11
#define NITER  15
#define SHIFT  20.0
#define RCOND  1.0e-1
#elif defined(CLASS_W)
#define CLASS 'W'
#define NA     7000
#define NONZER 8
#define NITER  15
#define SHIFT  12.0
#define RCOND  1.0e-1
#else
#define CLASS 'S'
#define NA     1400
#define NONZER 7
#define NITER  15
#define SHIFT  10.0
#define RCOND  1.0e-1
#endif

#define CONVERTDOUBLE false
#define COMPILETIME "suite"
#define NPBVERSION "3.3.1"
#define CS1 "cc"
#define CS2 "$(CC)"
#define CS3 "-lm"
#define CS4 "-I../common"
#define CS5 "-O2"
#define CS6 "-O2"
#define CS7 "randdp"
