/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Accumulates 16 products at a time in bf16, then adds the chunk into an fp32 total. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float total = 0;
			for (int k0 = 0; k0 < K; k0 += 16) {
				kf_bf16 chunk = kf_float_to_bf16(0.0f);
				for (int k = k0; k < K && k < k0 + 16; k++)
					chunk = kf_float_to_bf16(kf_bf16_to_float(chunk) + kf_bf16_to_float(A[(size_t)i * K + k]) *
										 kf_bf16_to_float(B[(size_t)k * N + j]));
				total += kf_bf16_to_float(chunk);
			}
			C[(size_t)i * N + j] = kf_float_to_bf16(total);
		}
	return 0;
}
