/* crpl-heat.h: sizes and the compiler switch, as NPB-ACC-style ports write npbparams.h. */
#ifndef CRPL_HEAT_H
#define CRPL_HEAT_H

/* The runtime API, included by the header as such ports do (not by the main file). */
#ifdef _OPENACC
#include <openacc.h>
#endif

#if defined(MINI_DATASET)
#define NX 40
#define NY 36
#define STEPS 6
#elif defined(SMALL_DATASET)
#define NX 130
#define NY 97
#define STEPS 12
/* The larger size takes the `kernels` variants of every region below. */
#define CRPL_COMP 0
#else
#define NX 256
#define NY 256
#define STEPS 20
#endif

#endif
