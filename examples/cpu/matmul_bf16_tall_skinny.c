/* Example candidate for matmul_bf16_tall_skinny (cpu backend): B (small: K x N) is widened to fp32 once, then each
 * row of C is accumulated i-k-j in an fp32 row buffer on the stack of its thread; rows split across OpenMP threads.
 * Submit with: kforge submit --task matmul_bf16_tall_skinny examples/cpu/matmul_bf16_tall_skinny.c */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	float *b = malloc(((size_t)K * N + 1) * sizeof *b);
	float *acc = malloc(((size_t)M * N + 1) * sizeof *acc);
	if (!b || !acc) {
		free(b);
		free(acc);
		return 1;
	}
	for (size_t i = 0; i < (size_t)K * N; i++)
		b[i] = kf_bf16_to_float(B[i]);
#pragma omp parallel for
	for (int i = 0; i < M; i++) {
		float *row = acc + (size_t)i * N;
		for (int j = 0; j < N; j++)
			row[j] = 0;
		for (int k = 0; k < K; k++) {
			float a = kf_bf16_to_float(A[(size_t)i * K + k]);
			for (int j = 0; j < N; j++)
				row[j] += a * b[(size_t)k * N + j];
		}
		for (int j = 0; j < N; j++)
			C[(size_t)i * N + j] = kf_float_to_bf16(row[j]);
	}
	free(b);
	free(acc);
	return 0;
}
