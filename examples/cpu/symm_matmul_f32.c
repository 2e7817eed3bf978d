/* Example candidate for symm_matmul_f32 (cpu backend): row i of S is A[i, k] for k >= i and A[k, i] (column i of A)
 * for k < i, so each output row reads both parts in place, no expanded copy; i-k-j order, rows across OpenMP threads.
 * Submit with: kforge submit --task symm_matmul_f32 examples/cpu/symm_matmul_f32.c */
#include <stddef.h>

int kf_launch(const float *A, const float *B, float *C, int N, int M)
{
#pragma omp parallel for
	for (int i = 0; i < N; i++) {
		float *c = C + (size_t)i * M;
		for (int j = 0; j < M; j++)
			c[j] = 0;
		for (int k = 0; k < N; k++) {
			const float s = k >= i ? A[(size_t)i * N + k] : A[(size_t)k * N + i], *b = B + (size_t)k * M;
#pragma omp simd
			for (int j = 0; j < M; j++)
				c[j] += s * b[j];
		}
	}
	return 0;
}
