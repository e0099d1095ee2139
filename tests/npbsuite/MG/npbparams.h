/* CLASS = S, W or A */
/*
   The parameters of NPB's classes S, W and A of MG (what NPB's setparams
   writes for a class).
*/
/*
   The class is chosen at compile time: -DCLASS_W or -DCLASS_A (NPB's
   classes W and A, the values NPB's setparams writes for them), class S
   without either.  benches/npb-classes.sh builds and times every class.
*/
#if defined(CLASS_A)
#define NX_DEFAULT     256
#define NY_DEFAULT     256
#define NZ_DEFAULT     256
#define NIT_DEFAULT    4
#define LM             8
#define LT_DEFAULT     8
#define DEBUG_DEFAULT  0
#define NDIM1          8
#define NDIM2          8
#define NDIM3          8
#elif defined(CLASS_W)
#define NX_DEFAULT     128
#define NY_DEFAULT     128
#define NZ_DEFAULT     128
#define NIT_DEFAULT    4
#define LM             7
#define LT_DEFAULT     7
#define DEBUG_DEFAULT  0
#define NDIM1          7
#define NDIM2          7
#define NDIM3          7
#else
#define NX_DEFAULT     32
#define NY_DEFAULT     32
#define NZ_DEFAULT     32
#define NIT_DEFAULT    4
#define LM             5
#define LT_DEFAULT     5
#define DEBUG_DEFAULT  0
#define NDIM1          5
#define NDIM2          5
#define NDIM3          5
#endif
#define ONE            1

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
