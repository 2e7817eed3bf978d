/* kforge-corpus: task=matmul_bf16 intended=correct */
/* Eight output columns at a time with a scalar column tail. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int q = N / 8 * 8;
#pragma omp parallel for
	for (int i = 0; i < M; i++) {
		for (int j = 0; j < q; j += 8) {
			float acc[8] = { 0 };
			for (int k = 0; k < K; k++) {
				float a = kf_bf16_to_float(A[(size_t)i * K + k]);
				for (int l = 0; l < 8; l++)
					acc[l] += a * kf_bf16_to_float(B[(size_t)k * N + j + l]);
			}
			for (int l = 0; l < 8; l++)
				C[(size_t)i * N + j + l] = kf_float_to_bf16(acc[l]);
		}
		for (int j = q; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	}
	return 0;
}
