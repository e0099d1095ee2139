/* A scalar declared at the top of the function, private to each iteration of a parallel loop
 * nest over a triangle and read after the region: which work-item runs the last iteration is
 * not known, so the region is refused; a loop variable declared outside and read after the
 * region likewise. */
#define N 64
float A[N], B[N][N];

float upper_products(void)
{
    int i;
    float t = 0.0f;
#pragma acc parallel loop collapse(2) copyin(A) copyout(B)
    for (i = 0; i < N; i++) {
        for (int j = i; j < N; j++) {
            t = A[i] + A[j];
            B[i][j] = A[j] * t;
        }
    }
    return t + (float)i;
}
