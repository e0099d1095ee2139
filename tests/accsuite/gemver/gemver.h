/**
 * gemver.h: sizes and data type of gemver.
 * Select a size with -DMINI_DATASET, -DSMALL_DATASET or -DSTANDARD_DATASET
 * (the default), or set each size with -D<NAME>=<value>.
 */
#ifndef _GEMVER_H
# define _GEMVER_H

/* Default to STANDARD_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(STANDARD_DATASET)
#  define STANDARD_DATASET
# endif

/* Do not define anything if the user manually defines the size. */
# if !defined(N)
/* Define the possible dataset sizes. */
#  ifdef MINI_DATASET
#   define N 32
#  endif /* MINI_DATASET */

#  ifdef SMALL_DATASET
#   define N 123
#  endif /* SMALL_DATASET */

#  ifdef STANDARD_DATASET
#   define N 400
#  endif /* STANDARD_DATASET */
# endif /* !(N) */

# define _PB_N POLYBENCH_LOOP_BOUND(N,n)

/* Default data type */
# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_FLOAT
# endif

#ifdef DATA_TYPE_IS_INT
#  define DATA_TYPE int
#  define DATA_PRINTF_MODIFIER "%d\n"
#endif

#ifdef DATA_TYPE_IS_FLOAT
#  define DATA_TYPE float
#  define DATA_PRINTF_MODIFIER "%.9g\n"
#  define SCALAR_VAL(x) x##f
#  define SQRT_FUN(x) sqrtf(x)
#  define EXP_FUN(x) expf(x)
#  define POW_FUN(x,y) powf(x,y)
#endif

#ifdef DATA_TYPE_IS_DOUBLE
#  define DATA_TYPE double
#  define DATA_PRINTF_MODIFIER "%.9g\n"
#  define SCALAR_VAL(x) x
#  define SQRT_FUN(x) sqrt(x)
#  define EXP_FUN(x) exp(x)
#  define POW_FUN(x,y) pow(x,y)
#endif

#endif /* !_GEMVER_H */
