/* atomic_short.c - `#pragma acc atomic` on a `short` element: the targets have atomic
 * operations on 32- and 64-bit values only. */
void histogram16(int n, int bins, const int *key, short *hist)
{
#pragma acc parallel loop copyin(key[0:n]) copy(hist[0:bins])
    for (int i = 0; i < n; i++) {
#pragma acc atomic
        hist[key[i]] += 1;
    }
}
