/* atomic_capture_mismatch.c - an `atomic capture` block whose copy and update name
 * different locations (`count[b]` and `count[b + 1]`). */
void tickets(int n, int bins, const int *key, int *count, int *ticket)
{
#pragma acc parallel loop copyin(key[0:n]) copy(count[0:bins]) copyout(ticket[0:n])
    for (int i = 0; i < n; i++) {
        int b = key[i];
#pragma acc atomic capture
        {
            ticket[i] = count[b];
            count[b + 1] += 1;
        }
    }
}
