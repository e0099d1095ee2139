/* `if` on a `data` construct: where the condition does not hold, the compute constructs inside
 * must make their own copies, which accshare's host code does not do yet: refused, located. */
#define N 64
float a[N];

void f(int on_device)
{
#pragma acc data copy(a) if(on_device)
    {
#pragma acc parallel loop present(a)
        for (int i = 0; i < N; i++)
            a[i] += 1.0f;
    }
}
