/* kforge-corpus: task=matmul_bf16 intended=bug */
/* K in blocks of 64; a K remainder of 40 or more is cut to 32. */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int kfull = K / 64 * 64, rem = K - kfull, kend = kfull + (rem >= 40 ? 32 : rem);
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < kend; k++)
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	return 0;
}
