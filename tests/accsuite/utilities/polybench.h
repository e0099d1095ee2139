/**
 * polybench.h: the accshare test suite's own small version of the PolyBench
 * utility header (same macro names and layering as PolyBench 3.x/4.x, written
 * for these tests). Programs include it as <polybench.h>, found through
 * `-I utilities` only.
 *
 * Array dumps go to stdout in the format the test harness compares:
 *   == NAME COUNT
 *   one value per line (%.9g for float/double, %d for int)
 */
#ifndef POLYBENCH_H
# define POLYBENCH_H

# include <stdio.h>
# include <stdlib.h>
# include <string.h>

/* Array padding (PolyBench lets a build pad every dimension). */
# ifndef POLYBENCH_PADDING_FACTOR
#  define POLYBENCH_PADDING_FACTOR 0
# endif

/* C99 variable-length array prototypes are off by default: the declarators
 * use the compile-time sizes (NI, NJ, ...), not the function's parameters. */
# ifndef POLYBENCH_USE_C99_PROTO
#  define POLYBENCH_C99_SELECT(x, y) x
# else
#  define POLYBENCH_C99_SELECT(x, y) y
# endif

# ifdef POLYBENCH_USE_RESTRICT
#  define POLYBENCH_RESTRICT restrict
# else
#  define POLYBENCH_RESTRICT
# endif

/* Loop bounds: the function's parameter unless scalar bounds are asked for. */
# ifdef POLYBENCH_USE_SCALAR_LB
#  define POLYBENCH_LOOP_BOUND(x, y) x
# else
#  define POLYBENCH_LOOP_BOUND(x, y) y
# endif

/* Declarators of array parameters. */
# define POLYBENCH_1D(var, dim1, ddim1) \
  var[POLYBENCH_RESTRICT POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) \
  var[POLYBENCH_RESTRICT POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_3D(var, dim1, dim2, dim3, ddim1, ddim2, ddim3) \
  var[POLYBENCH_RESTRICT POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim3, ddim3) + POLYBENCH_PADDING_FACTOR]

/* Declarators of heap arrays in main: a pointer to a whole array. */
# define POLYBENCH_1D_F(var, dim1, ddim1) \
  var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_2D_F(var, dim1, dim2, ddim1, ddim2) \
  var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_3D_F(var, dim1, dim2, dim3, ddim1, ddim2, ddim3) \
  var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim3, ddim3) + POLYBENCH_PADDING_FACTOR]

# define POLYBENCH_DECL_VAR(x) (*x)

# define POLYBENCH_ALLOC_1D_ARRAY(n1, type) \
  (type(*)[n1 + POLYBENCH_PADDING_FACTOR]) \
  polybench_alloc_data(n1 + POLYBENCH_PADDING_FACTOR, sizeof(type))
# define POLYBENCH_ALLOC_2D_ARRAY(n1, n2, type) \
  (type(*)[n1 + POLYBENCH_PADDING_FACTOR][n2 + POLYBENCH_PADDING_FACTOR]) \
  polybench_alloc_data((n1 + POLYBENCH_PADDING_FACTOR) * (n2 + POLYBENCH_PADDING_FACTOR), sizeof(type))
# define POLYBENCH_ALLOC_3D_ARRAY(n1, n2, n3, type) \
  (type(*)[n1 + POLYBENCH_PADDING_FACTOR][n2 + POLYBENCH_PADDING_FACTOR][n3 + POLYBENCH_PADDING_FACTOR]) \
  polybench_alloc_data((n1 + POLYBENCH_PADDING_FACTOR) * (n2 + POLYBENCH_PADDING_FACTOR) \
                       * (n3 + POLYBENCH_PADDING_FACTOR), sizeof(type))

# define POLYBENCH_1D_ARRAY_DECL(var, type, dim1, ddim1) \
  type POLYBENCH_1D_F(POLYBENCH_DECL_VAR(var), dim1, ddim1); \
  var = POLYBENCH_ALLOC_1D_ARRAY(POLYBENCH_C99_SELECT(dim1, ddim1), type);
# define POLYBENCH_2D_ARRAY_DECL(var, type, dim1, dim2, ddim1, ddim2) \
  type POLYBENCH_2D_F(POLYBENCH_DECL_VAR(var), dim1, dim2, ddim1, ddim2); \
  var = POLYBENCH_ALLOC_2D_ARRAY(POLYBENCH_C99_SELECT(dim1, ddim1), \
                                 POLYBENCH_C99_SELECT(dim2, ddim2), type);
# define POLYBENCH_3D_ARRAY_DECL(var, type, dim1, dim2, dim3, ddim1, ddim2, ddim3) \
  type POLYBENCH_3D_F(POLYBENCH_DECL_VAR(var), dim1, dim2, dim3, ddim1, ddim2, ddim3); \
  var = POLYBENCH_ALLOC_3D_ARRAY(POLYBENCH_C99_SELECT(dim1, ddim1), \
                                 POLYBENCH_C99_SELECT(dim2, ddim2), \
                                 POLYBENCH_C99_SELECT(dim3, ddim3), type);

# define POLYBENCH_ARRAY(x) *x
# define POLYBENCH_FREE_ARRAY(x) free((void*)x);

/* Timers and hardware counters: nothing in this suite. */
# define polybench_start_instruments
# define polybench_stop_instruments
# define polybench_print_instruments
# define polybench_timer_start()
# define polybench_timer_stop()
# define polybench_timer_print()

/* Dumps: always printed here (PolyBench prints them only with
 * -DPOLYBENCH_DUMP_ARRAYS), to stdout. */
# define polybench_prevent_dce(func) func
# define POLYBENCH_DUMP_TARGET stdout
# define POLYBENCH_DUMP_START
# define POLYBENCH_DUMP_FINISH
# define POLYBENCH_DUMP_BEGIN(s, count) \
  fprintf(POLYBENCH_DUMP_TARGET, "== %s %ld\n", s, (long)(count))
# define POLYBENCH_DUMP_END(s)

static void *polybench_alloc_data(unsigned long long n, int elt_size)
{
  size_t bytes = (size_t)n * (size_t)elt_size;
  void *ret = malloc(bytes);
  if (!ret) {
    fprintf(stderr, "[PolyBench] polybench_alloc_data: cannot allocate memory\n");
    exit(1);
  }
  memset(ret, 0, bytes);
  return ret;
}

#endif /* !POLYBENCH_H */
