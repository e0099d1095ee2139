/* CLASS = S */
/*
   The class of IS (what NPB's setparams writes for a class); is.c
   derives the number of keys and their range from it.
*/
#define CLASS 'S'
#define COMPILETIME "suite"
#define NPBVERSION "3.3.1"
#define CC "cc"
#define CFLAGS "-O2"
#define CLINK "$(CC)"
#define CLINKFLAGS "-O2"
#define C_LIB "-lm"
#define C_INC "-I../common"
