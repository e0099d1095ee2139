/* CLASS = S */
/*
   The parameters of this suite's class S of EP (what NPB's setparams
   writes for a class).  NPB's class S is M = 24 (2^25 random numbers);
   this suite's class S is M = 20, sixteen times smaller, so that the
   benchmark runs in a fraction of a second on a CPU OpenCL device.  Its
   reference sums come from the sequential build of this program (ep.c
   keeps NPB's values for M = 24 and 25: -DM=24 runs NPB's class S).
*/
#define CLASS 'S'
#ifndef M
#define M 20
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
