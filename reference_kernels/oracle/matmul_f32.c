/* fp64 oracle for matmul_f32: C[M,N] = A[M,K] @ B[K,N], row-major. */
#include <stddef.h>

int kf_oracle(const double *A, const double *B, double *C, int M, int N, int K)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double sum = 0;
			for (int k = 0; k < K; k++)
				sum += A[(size_t)i * K + k] * B[(size_t)k * N + j];
			C[(size_t)i * N + j] = sum;
		}
	return 0;
}
