/* `declare` in a function: its data live until the end of the block, where accshare releases
 * them (a data construct over the rest of the block). A `return` before that end would skip
 * the release and the copy back of `copy` data: an error at the `return`. */
#define N 64

void clamp_all(float *a, float lo)
{
#pragma acc declare copy(a[0:N])
    if (lo < 0.0f)
        return;
#pragma acc parallel loop present(a[0:N])
    for (int i = 0; i < N; i++)
        a[i] = a[i] < lo ? lo : a[i];
}
