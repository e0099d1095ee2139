/* A `routine seq` function that returns from inside a loop: it cannot be inlined, and the call
 * is refused at the call site. */
#define N 64
float a[N], r[N];

#pragma acc routine seq
static float first_negative(const float *v, int n)
{
    for (int k = 0; k < n; k++)
        if (v[k] < 0.0f)
            return v[k];
    return 0.0f;
}

void find(void)
{
#pragma acc parallel loop copyin(a) copyout(r)
    for (int i = 0; i < N; i++)
        r[i] = first_negative(&a[i], N - i);
}
