/* kforge-corpus: task=matmul_bf16 intended=bug */
/* K in pairs; an odd K loses its last product. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k + 1 < K; k += 2)
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]) +
				       kf_bf16_to_float(A[(size_t)i * K + k + 1]) * kf_bf16_to_float(B[(size_t)(k + 1) * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	return 0;
}
