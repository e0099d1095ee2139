/* A scalar declared at the top level of a `parallel` construct that two loops
 * use: each gang's copy would carry a value from the first loop to the second,
 * which kernels cannot keep. (Used by one loop alone, it becomes that loop's.) */
#define N 256

void scale(float *a, float *b)
{
#pragma acc parallel copy(a[0:N], b[0:N])
    {
        float t = 2.0f;
#pragma acc loop
        for (int i = 0; i < N; i++)
            a[i] = a[i] * t;
#pragma acc loop
        for (int i = 0; i < N; i++)
            b[i] = b[i] + t;
    }
}
