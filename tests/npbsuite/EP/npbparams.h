/* CLASS = S, W or A */
/*
   The parameters of this suite's class S of EP and of NPB's classes W
   and A (what NPB's setparams writes for a class).  NPB's class S is
   M = 24 (2^25 random numbers); this suite's class S is M = 20, sixteen
   times smaller, so that the benchmark runs in a fraction of a second on
   a CPU OpenCL device.  Its reference sums come from the sequential
   build of this program (ep.c keeps NPB's values for M = 24, 25 and 28:
   -DM=24 runs NPB's class S).  NPB's class W is M = 25, class A M = 28.
*/
/*
   The class is chosen at compile time: -DCLASS_W or -DCLASS_A (NPB's
   classes W and A, the values NPB's setparams writes for them), class S
   without either.  benches/npb-classes.sh builds and times every class.
*/
#if defined(CLASS_A)
#define CLASS 'A'
#ifndef M
#define M 28
#endif
#elif defined(CLASS_W)
#define CLASS 'W'
#ifndef M
#define M 25
#endif
#else
#define CLASS 'S'
#ifndef M
#define M 20
#endif
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
