/* The same array in two data clauses of one construct (accepted by other compilers; the
 * specification does not forbid it): the union of their movements, with a warning naming both.
 * Two different subarrays of one array stay an error. */
#define N 64
float a[N], b[N], t[N];

void f(int n)
{
#pragma acc parallel loop present_or_copyin(a, b) present_or_copyout(a, b, t)
    for (int i = 0; i < N; i++) {
        t[i] = a[i] + b[i];
        a[i] = 2.0f * t[i];
    }
#pragma acc parallel loop copyin(a[0:n]) copyout(a[0:N])
    for (int i = 0; i < n; i++)
        a[i] += 1.0f;
}
