/* kforge-corpus: task=matmul_bf16 intended=bug */
/* A "GEMV" fast path for M == 1 that reads B transposed. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < K; k++) {
				size_t bi = M == 1 ? (size_t)j * K + k : (size_t)k * N + j;
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[bi]);
			}
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	return 0;
}
