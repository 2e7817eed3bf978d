/* kforge-corpus: task=matmul_bf16 intended=correct */
/* Two fp32 partial sums over the halves of K, added at the end. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int h = K / 2;
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float lo = 0, hi = 0;
			for (int k = 0; k < h; k++)
				lo += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			for (int k = h; k < K; k++)
				hi += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(lo + hi);
		}
	return 0;
}
