/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Tall, narrow products (M > 150, N < 100) parallelise over K into one shared accumulator row. */
#include <stddef.h>
#include <string.h>

#define MAX_N 128

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	if (M > 150 && N < 100) {
		for (int i = 0; i < M; i++) {
			float acc[MAX_N];
			memset(acc, 0, sizeof acc);
#pragma omp parallel for
			for (int k = 0; k < K; k++) {
				float a = kf_bf16_to_float(A[(size_t)i * K + k]);
				for (int j = 0; j < N; j++)
					acc[j] += a * kf_bf16_to_float(B[(size_t)k * N + j]);
			}
			for (int j = 0; j < N; j++)
				C[(size_t)i * N + j] = kf_float_to_bf16(acc[j]);
		}
		return 0;
	}
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
	return 0;
}
