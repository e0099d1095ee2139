/**
 * laplace2d.h: sizes and data type of laplace2d.
 * Select a size with -DMINI_DATASET, -DSMALL_DATASET or -DSTANDARD_DATASET
 * (the default), or set each size with -D<NAME>=<value>.
 */
#ifndef _LAPLACE2D_H
# define _LAPLACE2D_H

/* Default to STANDARD_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(STANDARD_DATASET)
#  define STANDARD_DATASET
# endif

/* Do not define anything if the user manually defines the size. */
# if !defined(ITER_MAX) && !defined(NN) && !defined(NM)
/* Define the possible dataset sizes. */
#  ifdef MINI_DATASET
#   define ITER_MAX 20
#   define NN 24
#   define NM 20
#  endif /* MINI_DATASET */

#  ifdef SMALL_DATASET
#   define ITER_MAX 40
#   define NN 67
#   define NM 59
#  endif /* SMALL_DATASET */

#  ifdef STANDARD_DATASET
#   define ITER_MAX 1000
#   define NN 1024
#   define NM 1024
#  endif /* STANDARD_DATASET */
# endif /* !(ITER_MAX && NN && NM) */

# define _PB_ITER_MAX POLYBENCH_LOOP_BOUND(ITER_MAX,iter_max)
# define _PB_NN POLYBENCH_LOOP_BOUND(NN,nn)
# define _PB_NM POLYBENCH_LOOP_BOUND(NM,nm)

/* Default data type */
# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_DOUBLE
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

#endif /* !_LAPLACE2D_H */
