/**
 * hotspot.h: sizes and data type of hotspot.
 * Select a size with -DMINI_DATASET, -DSMALL_DATASET or -DSTANDARD_DATASET
 * (the default), or set each size with -D<NAME>=<value>.
 */
#ifndef _HOTSPOT_H
# define _HOTSPOT_H

/* Default to STANDARD_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(STANDARD_DATASET)
#  define STANDARD_DATASET
# endif

/* Do not define anything if the user manually defines the size. */
# if !defined(SIM_TIME) && !defined(GRID_ROWS) && !defined(GRID_COLS)
/* Define the possible dataset sizes. */
#  ifdef MINI_DATASET
#   define SIM_TIME 6
#   define GRID_ROWS 24
#   define GRID_COLS 28
#  endif /* MINI_DATASET */

#  ifdef SMALL_DATASET
#   define SIM_TIME 15
#   define GRID_ROWS 67
#   define GRID_COLS 77
#  endif /* SMALL_DATASET */

#  ifdef STANDARD_DATASET
#   define SIM_TIME 60
#   define GRID_ROWS 512
#   define GRID_COLS 512
#  endif /* STANDARD_DATASET */
# endif /* !(SIM_TIME && GRID_ROWS && GRID_COLS) */

# define _PB_SIM_TIME POLYBENCH_LOOP_BOUND(SIM_TIME,sim_time)
# define _PB_ROWS POLYBENCH_LOOP_BOUND(GRID_ROWS,grid_rows)
# define _PB_COLS POLYBENCH_LOOP_BOUND(GRID_COLS,grid_cols)

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

#endif /* !_HOTSPOT_H */
