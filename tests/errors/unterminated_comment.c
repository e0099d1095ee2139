/* unterminated_comment.c - a block comment that is never closed. */
void saxpy(int n, float a, const float *x, float *y)
{
    /* y <- a*x + y
#pragma acc parallel loop copyin(x[0:n]) copy(y[0:n])
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
