/* aos_mixed_types.c - a struct whose fields have different types, indexed in a kernel. */
#define N 64
struct rec { int id; float w; };

void f(struct rec r[N], float s[N])
{
#pragma acc parallel loop copyin(r[0:N]) copyout(s[0:N])
    for (int i = 0; i < N; i++)
        s[i] = r[i].w;
}
