/* fp64 oracle for matmul_bf16: C[M,N] = A[M,K] @ B[K,N], row-major. Each C[i][j] sums its products
 * in k order; the loops run i, k, j so the inner one streams through rows (fast, same sums). */
#include <stddef.h>

int kf_oracle(const double *A, const double *B, double *C, int M, int N, int K)
{
	for (int i = 0; i < M; i++) {
		double *c = C + (size_t)i * N;
		for (int j = 0; j < N; j++)
			c[j] = 0;
		for (int k = 0; k < K; k++) {
			const double a = A[(size_t)i * K + k], *b = B + (size_t)k * N;
			for (int j = 0; j < N; j++)
				c[j] += a * b[j];
		}
	}
	return 0;
}
