/* fp64 oracle for swiglu_up: H = silu(X @ Wg) * (X @ Wu), silu(z) = z / (1 + exp(-z)). */
#include <math.h>
#include <stddef.h>

int kf_oracle(const double *X, const double *Wg, const double *Wu, double *H, int M, int N, int K)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double g = 0, u = 0;
			for (int k = 0; k < K; k++) {
				g += X[(size_t)i * K + k] * Wg[(size_t)k * N + j];
				u += X[(size_t)i * K + k] * Wu[(size_t)k * N + j];
			}
			H[(size_t)i * N + j] = g / (1.0 + exp(-g)) * u;
		}
	return 0;
}
