/* atomic_max.c - a conditional under `#pragma acc atomic update` that is not a minimum or a
 * maximum (`x = x > e ? x : 0`): its other branch is not the compared value. Minimum and
 * maximum (`x = fmaxf(x, e)`, `x = x > e ? x : e`, `if (e > x) x = e;`) compile. */
void bin_max(int n, int bins, const int *key, const float *x, float *m)
{
#pragma acc parallel loop copyin(key[0:n], x[0:n]) copy(m[0:bins])
    for (int i = 0; i < n; i++) {
        int b = key[i];
#pragma acc atomic update
        m[b] = m[b] > x[i] ? m[b] : 0.0f;
    }
}
