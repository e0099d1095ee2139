/* atomic_max.c - a maximum under `#pragma acc atomic update`: `fmaxf` is not one of
 * OpenACC's atomic operators (+ - * / & | ^ << >>). */
void bin_max(int n, int bins, const int *key, const float *x, float *m)
{
#pragma acc parallel loop copyin(key[0:n], x[0:n]) copy(m[0:bins])
    for (int i = 0; i < n; i++) {
        int b = key[i];
#pragma acc atomic update
        m[b] = fmaxf(m[b], x[i]);
    }
}
