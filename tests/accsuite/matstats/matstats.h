/**
 * matstats.h: sizes of matstats.
 * Select a size with -DMINI_DATASET, -DSMALL_DATASET or -DSTANDARD_DATASET
 * (the default), or set each size with -D<NAME>=<value>.
 */
#ifndef _MATSTATS_H
# define _MATSTATS_H

/* Default to STANDARD_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(STANDARD_DATASET)
#  define STANDARD_DATASET
# endif

/* Do not define anything if the user manually defines the size. */
# if !defined(NN) && !defined(NM) && !defined(NK)
/* Define the possible dataset sizes. */
#  ifdef MINI_DATASET
#   define NN 24
#   define NM 20
#   define NK 3
#  endif /* MINI_DATASET */

#  ifdef SMALL_DATASET
#   define NN 67
#   define NM 59
#   define NK 5
#  endif /* SMALL_DATASET */

#  ifdef STANDARD_DATASET
#   define NN 1024
#   define NM 1024
#   define NK 8
#  endif /* STANDARD_DATASET */
# endif /* !(NN && NM && NK) */

#endif /* !_MATSTATS_H */
