/* `copyout` where `copy` was meant: the kernel scales `x` in place, but `copyout` allocates
 * the device copy without the host's values, so it reads undefined ones. (On a device that
 * shares host memory the program may still print the right values.) */
#define N 4096

void scale(float *x, float s)
{
#pragma acc parallel loop copyout(x[0:N])
    for (int i = 0; i < N; i++)
        x[i] = s * x[i];
}

int main(void)
{
    static float x[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    scale(x, 2.0f);
    return 0;
}
