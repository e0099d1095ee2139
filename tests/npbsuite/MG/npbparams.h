/* CLASS = S */
/*
   The parameters of NPB's class S of MG (what NPB's setparams writes
   for a class).
*/
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
