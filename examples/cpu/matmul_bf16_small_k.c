/* Example candidate for matmul_bf16_small_k (cpu backend): with K small, each output is a short dot product: the
 * row of A is widened into a small fp32 buffer once, columns of B are read strided; rows split across OpenMP
 * threads. Submit with: kforge submit --task matmul_bf16_small_k examples/cpu/matmul_bf16_small_k.c */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	float *a = malloc(((size_t)M * K + 1) * sizeof *a);
	if (!a)
		return 1;
#pragma omp parallel for
	for (int i = 0; i < M; i++) {
		float *ar = a + (size_t)i * K;
		for (int k = 0; k < K; k++)
			ar[k] = kf_bf16_to_float(A[(size_t)i * K + k]);
		for (int j = 0; j < N; j++) {
			float sum = 0;
			for (int k = 0; k < K; k++)
				sum += ar[k] * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(sum);
		}
	}
	free(a);
	return 0;
}
