/* The `zero:` modifier (OpenACC 3.3) applies to `create` and `copyout`: on `copyin` it is an
 * error. `readonly:` is a hint, accepted. */
#define N 64
float a[N], b[N];

void f(void)
{
#pragma acc parallel loop copyin(readonly: a) copyin(zero: b)
    for (int i = 0; i < N; i++)
        a[i] += b[i];
}
