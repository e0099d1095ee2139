/* The `zero:` modifier (OpenACC 3.3): the device copy must start zeroed, which accshare's host
 * code does not do: refused, located (never an uninitialized copy). `readonly:` is a hint. */
#define N 64
float a[N], b[N];

void f(void)
{
#pragma acc parallel loop copyin(readonly: a) copyout(zero: b)
    for (int i = 0; i < N; i++)
        b[i] += a[i];
}
