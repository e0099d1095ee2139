/* The OpenACC course's Jacobi exercise (laplace2d), with the progress report that prints a
 * value of the grid every 100 iterations: inside the data region the host's `A` is not what
 * the kernels computed, and no `update self(A)` comes before the `printf`. Every compiler
 * compiles it; it prints the initial grid's value each time. */
#include <math.h>
#include <stdio.h>

#define NN 256
#define NM 256

double A[NN][NM];
double Anew[NN][NM];

int main(void)
{
    const int n = NN, m = NM, iter_max = 1000;
    const double tol = 1.0e-6;
    double error = 1.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            A[j][i] = j == 0 ? 1.0 : 0.0;
    int iter = 0;
#pragma acc data copy(A) create(Anew)
    while (error > tol && iter < iter_max) {
        error = 0.0;
#pragma acc parallel loop reduction(max:error)
        for (int j = 1; j < n - 1; j++) {
#pragma acc loop reduction(max:error)
            for (int i = 1; i < m - 1; i++) {
                Anew[j][i] = 0.25 * (A[j][i + 1] + A[j][i - 1] + A[j - 1][i] + A[j + 1][i]);
                error = fmax(error, fabs(Anew[j][i] - A[j][i]));
            }
        }
#pragma acc parallel loop
        for (int j = 1; j < n - 1; j++) {
#pragma acc loop
            for (int i = 1; i < m - 1; i++)
                A[j][i] = Anew[j][i];
        }
        if (iter % 100 == 0)
            printf("%5d, %0.6f, A[1][1] = %0.6f\n", iter, error, A[1][1]);
        iter++;
    }
    printf("%5d, %0.6f\n", iter, error);
    return 0;
}
