/* An array in a `reduction` clause (OpenACC 2.7): accshare reduces scalars only, and the
 * loop's updates of the array's elements would race in parallel: the loop runs in order, with a
 * warning saying so (accepted). */
#define N 500
unsigned a[N];
unsigned b[5];

void f(void)
{
#pragma acc parallel loop reduction(|:b) copyin(a)
    for (int x = 0; x < N; x++)
        b[x % 5] = b[x % 5] | a[x];
}
