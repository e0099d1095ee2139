/* struct_member_assigned.c - a scalar member of a struct assigned inside a compute region:
 * kernels receive `st.count` by value, so the assignment would not reach the struct. */
typedef struct {
    int n;
    int count;
    float *x;
} stats_t;

void count_positive(stats_t st)
{
#pragma acc parallel loop copyin(st.x[0:st.n])
    for (int i = 0; i < st.n; i++)
        if (st.x[i] > 0.0f)
            st.count++;
}
