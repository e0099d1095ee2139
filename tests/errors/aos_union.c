/* aos_union.c - an array of unions, indexed in a kernel. */
#define N 64
union word { float f; int i; };

void f(union word w[N], float s[N])
{
#pragma acc parallel loop copyin(w[0:N]) copyout(s[0:N])
    for (int i = 0; i < N; i++)
        s[i] = w[i].f;
}
