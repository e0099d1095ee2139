/* aos_array_in_struct.c - a struct with an array member, indexed in a kernel. */
#define N 64
typedef struct { float v[3]; float w; } vw;

void f(vw a[N], float s[N])
{
#pragma acc parallel loop copyin(a[0:N]) copyout(s[0:N])
    for (int i = 0; i < N; i++)
        s[i] = a[i].w;
}
