/* kforge-corpus: task=matmul_bf16 intended=correct */
/* Accumulates in double (more precise than asked for). */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double acc = 0;
			for (int k = 0; k < K; k++)
				acc += (double)kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16((float)acc);
		}
	return 0;
}
