/* kforge-corpus: task=matmul_bf16 intended=correct */
/* Transposes B into fp32 so both operands are read along rows. */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	float *bt = malloc(sizeof(float) * (size_t)K * N);
	if (!bt)
		return 1;
#pragma omp parallel for
	for (int k = 0; k < K; k++)
		for (int j = 0; j < N; j++)
			bt[(size_t)j * K + k] = kf_bf16_to_float(B[(size_t)k * N + j]);
#pragma omp parallel for
	for (int i = 0; i < M; i++) {
		const kf_bf16 *ai = A + (size_t)i * K;
		for (int j = 0; j < N; j++) {
			const float *bj = bt + (size_t)j * K;
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += kf_bf16_to_float(ai[k]) * bj[k];
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	}
	free(bt);
	return 0;
}
