/* Example candidate for triu_matmul_f32 (cpu backend): row i of C only needs k in [i, N) and, for each k, the part
 * j >= k of B's row k, so the i-k-j loops skip every zero block; rows across OpenMP threads (dynamic: row i costs
 * about (N - i)^2 / 2). Submit with: kforge submit --task triu_matmul_f32 examples/cpu/triu_matmul_f32.c */
#include <stddef.h>

int kf_launch(const float *A, const float *B, float *C, int N)
{
#pragma omp parallel for schedule(dynamic, 8)
	for (int i = 0; i < N; i++) {
		float *c = C + (size_t)i * N;
		for (int j = 0; j < N; j++)
			c[j] = 0;
		for (int k = i; k < N; k++) {
			const float a = A[(size_t)i * N + k], *b = B + (size_t)k * N;
#pragma omp simd
			for (int j = k; j < N; j++)
				c[j] += a * b[j];
		}
	}
	return 0;
}
