/* fp64 oracle for matmul_bf16_nt: C[m, n] = sum_k A[m, k] * B[n, k] (B stored [N, K]). */
#include <stddef.h>

int kf_oracle(const double *A, const double *B, double *C, int M, int N, int K)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double sum = 0;
			for (int k = 0; k < K; k++)
				sum += A[(size_t)i * K + k] * B[(size_t)j * K + k];
			C[(size_t)i * N + j] = sum;
		}
	return 0;
}
