/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Transposes B in place of a scratch sized for a square matrix (indexes with K for both sides). */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	size_t side = (size_t)(K > N ? K : N);
	float *bt = malloc(sizeof(float) * side * side);
	if (!bt)
		return 1;
	for (int k = 0; k < K; k++)
		for (int j = 0; j < N; j++)
			bt[(size_t)j * K + k] = kf_bf16_to_float(B[(size_t)k * K + j < (size_t)K * N ? (size_t)k * K + j : 0]);
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * bt[(size_t)j * K + k];
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	free(bt);
	return 0;
}
