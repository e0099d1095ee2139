/**
 * kmeans.h: sizes and data type of kmeans.
 * Select a size with -DMINI_DATASET, -DSMALL_DATASET or -DSTANDARD_DATASET
 * (the default), or set each size with -D<NAME>=<value>.
 */
#ifndef _KMEANS_H
# define _KMEANS_H

/* Default to STANDARD_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(STANDARD_DATASET)
#  define STANDARD_DATASET
# endif

/* Do not define anything if the user manually defines the size. */
# if !defined(NPOINTS) && !defined(NFEATURES) && !defined(NCLUSTERS) && !defined(NITERS)
/* Define the possible dataset sizes. */
#  ifdef MINI_DATASET
#   define NPOINTS 64
#   define NFEATURES 6
#   define NCLUSTERS 5
#   define NITERS 3
#  endif /* MINI_DATASET */

#  ifdef SMALL_DATASET
#   define NPOINTS 301
#   define NFEATURES 9
#   define NCLUSTERS 7
#   define NITERS 5
#  endif /* SMALL_DATASET */

#  ifdef STANDARD_DATASET
#   define NPOINTS 4000
#   define NFEATURES 34
#   define NCLUSTERS 10
#   define NITERS 20
#  endif /* STANDARD_DATASET */
# endif /* !(NPOINTS && NFEATURES && NCLUSTERS && NITERS) */

# define _PB_NPOINTS POLYBENCH_LOOP_BOUND(NPOINTS,npoints)
# define _PB_NFEATURES POLYBENCH_LOOP_BOUND(NFEATURES,nfeatures)
# define _PB_NCLUSTERS POLYBENCH_LOOP_BOUND(NCLUSTERS,nclusters)
# define _PB_NITERS POLYBENCH_LOOP_BOUND(NITERS,niters)

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

#endif /* !_KMEANS_H */
