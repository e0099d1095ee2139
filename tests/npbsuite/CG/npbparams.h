/* CLASS = S */
/*
   The parameters of NPB's class S of CG (what NPB's setparams writes
   for a class).
*/
#define CLASS 'S'
#define NA     1400
#define NONZER 7
#define NITER  15
#define SHIFT  10.0
#define RCOND  1.0e-1

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
