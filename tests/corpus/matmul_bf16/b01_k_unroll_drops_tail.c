/* kforge-corpus: task=matmul_bf16 intended=bug */
/* K unrolled by eight; the K tail is dropped. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int k8 = K / 8 * 8;
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < k8; k += 8)
				for (int u = 0; u < 8; u++)
					acc += kf_bf16_to_float(A[(size_t)i * K + k + u]) * kf_bf16_to_float(B[(size_t)(k + u) * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	return 0;
}
