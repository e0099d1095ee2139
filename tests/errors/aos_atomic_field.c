/* aos_atomic_field.c - `#pragma acc atomic` on a field of an array of structs. */
#define N 64
typedef struct { float re, im; } cpx;

void f(cpx h[8], const int key[N], const float x[N])
{
#pragma acc parallel loop copyin(key[0:N], x[0:N]) copy(h[0:8])
    for (int i = 0; i < N; i++) {
#pragma acc atomic update
        h[key[i]].re += x[i];
    }
}
