/* Vendor spellings that are not OpenACC: warnings that name the clause, then ignored. */
#define N 64
float a[N];

void scale(void)
{
#pragma acc parallel loop gang[1] num_gangs[0](4) copy(a)
    for (int i = 0; i < N; i++)
        a[i] = 2.0f * a[i];
}
