/* aos_bitfield.c - a struct of bit-fields, indexed in a kernel. */
#define N 64
struct flags { unsigned a : 4; unsigned b : 4; };

void f(struct flags fl[N], unsigned s[N])
{
#pragma acc parallel loop copyin(fl[0:N]) copyout(s[0:N])
    for (int i = 0; i < N; i++)
        s[i] = fl[i].a;
}
