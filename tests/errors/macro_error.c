/* macro_error.c - a broken macro (missing right operand) that only fails
 * where it is expanded, inside a kernel. */
#define N 1000
#define BAD(x) ((x) + )

void offset(float y[N], float x[N])
{
#pragma acc parallel loop copyin(x[0:N]) copyout(y[0:N])
    for (int i = 0; i < N; i++)
        y[i] = BAD(x[i]);
}
