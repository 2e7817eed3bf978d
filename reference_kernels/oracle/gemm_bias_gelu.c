/* fp64 oracle for gemm_bias_gelu: C = gelu(A @ B + bias), gelu(z) = z/2 * (1 + erf(z / sqrt(2))). */
#include <math.h>
#include <stddef.h>

int kf_oracle(const double *A, const double *B, const double *bias, double *C, int M, int N, int K)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double z = bias[j];
			for (int k = 0; k < K; k++)
				z += A[(size_t)i * K + k] * B[(size_t)k * N + j];
			C[(size_t)i * N + j] = 0.5 * z * (1.0 + erf(z / sqrt(2.0)));
		}
	return 0;
}
