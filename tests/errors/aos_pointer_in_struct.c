/* aos_pointer_in_struct.c - a struct with a pointer member, indexed in a kernel. */
#define N 64
struct cell { float *data; float w; };

void f(struct cell c[N], float s[N])
{
#pragma acc parallel loop copyin(c[0:N]) copyout(s[0:N])
    for (int i = 0; i < N; i++)
        s[i] = c[i].w;
}
