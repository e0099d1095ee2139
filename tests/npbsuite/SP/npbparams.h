/* CLASS = S, W or A */
/*
   The parameters of classes S, W and A of SP (what NPB's setparams
   writes for a class): class S a 12^3 grid, 100 time steps of 0.015;
   class W a 36^3 grid and class A a 64^3 grid, 400 time steps of 0.0015.
*/
/*
   The class is chosen at compile time: -DCLASS_W or -DCLASS_A (NPB's
   classes W and A, the values NPB's setparams writes for them), class S
   without either.  benches/npb-classes.sh builds and times every class.
*/
#if defined(CLASS_A)
#define CLASS 'A'
#define PROBLEM_SIZE   64
#define NITER_DEFAULT  400
#define DT_DEFAULT     0.0015
#elif defined(CLASS_W)
#define CLASS 'W'
#define PROBLEM_SIZE   36
#define NITER_DEFAULT  400
#define DT_DEFAULT     0.0015
#else
#define CLASS 'S'
#define PROBLEM_SIZE   12
#define NITER_DEFAULT  100
#define DT_DEFAULT     0.015
#endif

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
