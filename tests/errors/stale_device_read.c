/* A heat equation whose boundary value the host sets at every step inside the data region:
 * the kernels read the device's copy of `u`, which the host's write never reaches without
 * `update device`. */
#define N 1024

void heat(int steps, double *u, double *v, double nu)
{
#pragma acc data copy(u[0:N]) create(v[0:N])
    for (int t = 0; t < steps; t++) {
        u[0] = 1.0;
#pragma acc parallel loop present(u[0:N], v[0:N])
        for (int i = 1; i < N - 1; i++)
            v[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
#pragma acc parallel loop present(u[0:N], v[0:N])
        for (int i = 1; i < N - 1; i++)
            u[i] = v[i];
    }
}

int main(void)
{
    static double u[N], v[N];
    heat(100, u, v, 0.25);
    return 0;
}
