/* include_missing.c - includes a local header that does not exist. */
#include "nope.h"

void scale(int n, float *x, float a)
{
#pragma acc parallel loop copy(x[0:n])
    for (int i = 0; i < n; i++)
        x[i] = a * x[i];
}
