/* CLASS = S */
/*
   The parameters of class S of SP (what NPB's setparams writes for a
   class): a 12^3 grid, 100 time steps of 0.015.
*/
#define CLASS 'S'
#define PROBLEM_SIZE   12
#define NITER_DEFAULT  100
#define DT_DEFAULT     0.015

#define CONVERTDOUBLE  false
#define COMPILETIME "suite"
#define NPBVERSION "3.3.1"
#define CS1 "cc"
#define CS2 "$(CC)"
#define CS3 "-lm"
#define CS4 "-I../common"
#define CS5 "-O2"
#define CS6 "-O2"
#define CS7 "randdp"
