/* aos_whole_struct.c - a whole struct assigned in a kernel (`c[i] = a[i]`). */
#define N 64
typedef struct { float re, im; } cpx;

void f(cpx c[N], cpx a[N])
{
#pragma acc parallel loop copyin(a[0:N]) copyout(c[0:N])
    for (int i = 0; i < N; i++)
        c[i] = a[i];
}
