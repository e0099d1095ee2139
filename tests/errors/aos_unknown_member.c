/* aos_unknown_member.c - a member the struct does not have. */
#define N 64
typedef struct { float re, im; } cpx;

void f(cpx a[N], float s[N])
{
#pragma acc parallel loop copyin(a[0:N]) copyout(s[0:N])
    for (int i = 0; i < N; i++)
        s[i] = a[i].imag;
}
