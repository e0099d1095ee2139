/* CLASS = S, W or A */
/*
   The parameters of NPB's classes S, W and A of FT (what NPB's setparams
   writes for a class).
*/
/*
   The class is chosen at compile time: -DCLASS_W or -DCLASS_A (NPB's
   classes W and A, the values NPB's setparams writes for them), class S
   without either.  benches/npb-classes.sh builds and times every class.
*/
#if defined(CLASS_A)
#define CLASS 'A'
#define NX             256
#define NY             256
#define NZ             128
#define MAXDIM         256
#define NITER_DEFAULT  6
#define NXP            257
#define NYP            256
#define NTOTAL         8388608
#define NTOTALP        8421376
#elif defined(CLASS_W)
#define CLASS 'W'
#define NX             128
#define NY             128
#define NZ             32
#define MAXDIM         128
#define NITER_DEFAULT  6
#define NXP            129
#define NYP            128
#define NTOTAL         524288
#define NTOTALP        528384
#else
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
