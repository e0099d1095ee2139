/* atomic_bool.c - `#pragma acc atomic` on a `_Bool` element: `char` and `short` compile (a
 * compare-and-swap on the word that holds them), `_Bool` does not. */
void mark(int n, int bins, const int *key, _Bool *seen)
{
#pragma acc parallel loop copyin(key[0:n]) copy(seen[0:bins])
    for (int i = 0; i < n; i++) {
#pragma acc atomic write
        seen[key[i]] = 1;
    }
}
