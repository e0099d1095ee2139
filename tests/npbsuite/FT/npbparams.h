/* CLASS = S */
/*
   The parameters of NPB's class S of FT (what NPB's setparams writes
   for a class).
*/
#define CLASS 'S'
#define NX             64
#define NY             64
#define NZ             64
#define MAXDIM         64
#define NITER_DEFAULT  6
#define NXP            65
#define NYP            64
#define NTOTAL         262144
#define NTOTALP        266240

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
