/* CPU reference for matmul_bf16_nt: C[m, n] = sum_k A[m, k] * B[n, k] (B stored [N, K]), fp32 accumulation.
 * Both operands are K-contiguous, so each output is a dot product of two rows; A and B are widened to fp32 once
 * (so the dot products vectorise), then rows of C split across OpenMP threads. */
#include <stddef.h>
#include <stdlib.h>

static void widen(float *dst, const kf_bf16 *src, size_t n)
{
#pragma omp for simd schedule(static)
	for (size_t i = 0; i < n; i++)
		dst[i] = kf_bf16_to_float(src[i]);
}

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	float *a = malloc(((size_t)M * K + 1) * sizeof *a), *b = malloc(((size_t)N * K + 1) * sizeof *b);
	if (!a || !b) {
		free(a);
		free(b);
		return 1;
	}
#pragma omp parallel
	{
		widen(a, A, (size_t)M * K);
		widen(b, B, (size_t)N * K);
#pragma omp for schedule(static)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				const float *ar = a + (size_t)i * K, *br = b + (size_t)j * K;
				float sum = 0;
#pragma omp simd reduction(+ : sum)
				for (int k = 0; k < K; k++)
					sum += ar[k] * br[k];
				C[(size_t)i * N + j] = kf_float_to_bf16(sum);
			}
	}
	free(a);
	free(b);
	return 0;
}
