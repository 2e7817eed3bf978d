/* Example candidate for diag_matmul_f32 (cpu backend): one multiply per element, each row by its diag[i]; rows across
 * OpenMP threads, the inner loop vectorised.
 * Submit with: kforge submit --task diag_matmul_f32 examples/cpu/diag_matmul_f32.c */
#include <stddef.h>

int kf_launch(const float *diag, const float *B, float *C, int N, int M)
{
#pragma omp parallel for
	for (int i = 0; i < N; i++) {
		const float s = diag[i], *b = B + (size_t)i * M;
		float *c = C + (size_t)i * M;
#pragma omp simd
		for (int j = 0; j < M; j++)
			c[j] = s * b[j];
	}
	return 0;
}
