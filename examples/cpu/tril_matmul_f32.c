/* Example candidate for tril_matmul_f32 (cpu backend): row i of C needs k in [0, i] and, for each k, the part j <= k
 * of B's row k, so the i-k-j loops skip every zero block; rows across OpenMP threads (dynamic: row i costs about
 * i^2 / 2). Submit with: kforge submit --task tril_matmul_f32 examples/cpu/tril_matmul_f32.c */
#include <stddef.h>

int kf_launch(const float *A, const float *B, float *C, int N)
{
#pragma omp parallel for schedule(dynamic, 8)
	for (int i = 0; i < N; i++) {
		float *c = C + (size_t)i * N;
		for (int j = 0; j < N; j++)
			c[j] = 0;
		for (int k = 0; k <= i; k++) {
			const float a = A[(size_t)i * N + k], *b = B + (size_t)k * N;
#pragma omp simd
			for (int j = 0; j <= k; j++)
				c[j] += a * b[j];
		}
	}
	return 0;
}
