/* struct_member_unknown.c - a data clause names a member the struct does not have (`vals`;
 * the struct's pointer member is `val`). */
struct series {
    int len;
    double *val;
};

void scale(struct series *s, double k)
{
#pragma acc parallel loop copy(s->vals[0:s->len])
    for (int i = 0; i < s->len; i++)
        s->val[i] *= k;
}
