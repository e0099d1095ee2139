/* CLASS = S, W or A */
/*
   The class of IS (what NPB's setparams writes for a class); is.c
   derives the number of keys and their range from it.
*/
/*
   The class is chosen at compile time: -DCLASS_W or -DCLASS_A (NPB's
   classes W and A, the values NPB's setparams writes for them), class S
   without either.  benches/npb-classes.sh builds and times every class.
*/
#if defined(CLASS_A)
#define CLASS 'A'
#elif defined(CLASS_W)
#define CLASS 'W'
#else
#define CLASS 'S'
#endif
#define COMPILETIME "suite"
#define NPBVERSION "3.3.1"
#define CC "cc"
#define CFLAGS "-O2"
#define CLINK "$(CC)"
#define CLINKFLAGS "-O2"
#define C_LIB "-lm"
#define C_INC "-I../common"
