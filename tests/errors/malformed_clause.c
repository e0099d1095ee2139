/* malformed_clause.c - the copyin subarray is missing its closing `]` and `)`. */
void add(int n, const float *A, const float *B, float *C)
{
#pragma acc parallel loop copyin(A[0:n copyin(B[0:n]) copyout(C[0:n])
    for (int i = 0; i < n; i++)
        C[i] = A[i] + B[i];
}
