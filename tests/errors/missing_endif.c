/* missing_endif.c - an #ifdef with no matching #endif. */
#define N 512

void scale(float x[N], float a)
{
#ifdef USE_HALF
    a = 0.5f * a;
#else
    a = 2.0f * a;

#pragma acc parallel loop copy(x[0:N])
    for (int i = 0; i < N; i++)
        x[i] = a * x[i];
}
