/* struct_in_kernel.c - struct member access through a pointer (`->`) inside a
 * kernel loop. */
struct point {
    float x;
    float y;
};

void norms(int n, const struct point *pts, float *r2)
{
#pragma acc parallel loop copyin(pts[0:n]) copyout(r2[0:n])
    for (int i = 0; i < n; i++)
        r2[i] = (pts + i)->x * pts[i].x + pts[i].y * pts[i].y;
}
