/* aos_member_of_member.c - a member of a member (`b[i].pos.x`) in a kernel. */
#define N 64
struct vec3 { float x, y, z; };
struct body { struct vec3 pos; float m; };

void f(struct body b[N], float x[N])
{
#pragma acc parallel loop copyin(b[0:N]) copyout(x[0:N])
    for (int i = 0; i < N; i++)
        x[i] = b[i].pos.x;
}
