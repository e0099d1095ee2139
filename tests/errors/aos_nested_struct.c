/* aos_nested_struct.c - an array of structs with a nested struct member, indexed in a kernel. */
#define N 64
struct vec3 { float x, y, z; };
struct body { struct vec3 pos; float m; };

void f(struct body b[N], float m[N])
{
#pragma acc parallel loop copyin(b[0:N]) copyout(m[0:N])
    for (int i = 0; i < N; i++)
        m[i] = b[i].m;
}
