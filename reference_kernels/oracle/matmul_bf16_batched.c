/* fp64 oracle for matmul_bf16_batched: C[b] = A[b] @ B[b], each matrix row-major, batch outermost. */
#include <stddef.h>

int kf_oracle(const double *A, const double *B, double *C, int batch, int M, int N, int K)
{
	for (int b = 0; b < batch; b++) {
		const double *a = A + (size_t)b * M * K, *bm = B + (size_t)b * K * N;
		double *c = C + (size_t)b * M * N;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double sum = 0;
				for (int k = 0; k < K; k++)
					sum += a[(size_t)i * K + k] * bm[(size_t)k * N + j];
				c[(size_t)i * N + j] = sum;
			}
	}
	return 0;
}
