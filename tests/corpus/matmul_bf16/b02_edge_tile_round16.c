/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Column tiles of 64; an edge tile narrower than 32 is rounded down to a multiple of 16 columns
 * (a single leftover column has its own path). */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int tiles = (N + 63) / 64;
#pragma omp parallel for collapse(2)
	for (int i = 0; i < M; i++)
		for (int t = 0; t < tiles; t++) {
			int j0 = t * 64, w = N - j0 < 64 ? N - j0 : 64;
			if (w < 32 && w > 1)
				w = w / 16 * 16;
			for (int j = j0; j < j0 + w; j++) {
				float acc = 0;
				for (int k = 0; k < K; k++)
					acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
				C[(size_t)i * N + j] = kf_float_to_bf16(acc);
			}
		}
	return 0;
}
