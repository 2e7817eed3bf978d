/* fp64 oracle for selective_scan, the recurrence step by step from h = 0:
 * h[d, n] = exp(delta[b, t, d] A[d, n]) h[d, n] + delta[b, t, d] Bm[b, t, n] u[b, t, d];
 * y[b, t, d] = sum_n Cm[b, t, n] h[d, n]. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

int kf_oracle(const double *u, const double *delta, const double *A, const double *Bm, const double *Cm, double *y,
	      int B, int L, int Dm, int N)
{
	double *h = malloc((size_t)Dm * N * sizeof *h);
	if (!h)
		return 1;
	for (int b = 0; b < B; b++) {
		for (size_t i = 0; i < (size_t)Dm * N; i++)
			h[i] = 0;
		for (int t = 0; t < L; t++) {
			size_t row = (size_t)b * L + t;
			for (int d = 0; d < Dm; d++) {
				double dt = delta[row * Dm + d], acc = 0;
				for (int n = 0; n < N; n++) {
					double *hn = &h[(size_t)d * N + n];
					*hn = exp(dt * A[(size_t)d * N + n]) * *hn + dt * Bm[row * N + n] * u[row * Dm + d];
					acc += Cm[row * N + n] * *hn;
				}
				y[row * Dm + d] = acc;
			}
		}
	}
	free(h);
	return 0;
}
