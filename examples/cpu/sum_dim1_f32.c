/* Example candidate for sum_dim1_f32 (cpu backend): for each b, the N rows of x[b] are added into y[b, :] one after
 * another (unit-stride, vectorisable), batches split across OpenMP threads.
 * Submit with: kforge submit --task sum_dim1_f32 examples/cpu/sum_dim1_f32.c */
#include <stddef.h>

int kf_launch(const float *x, float *y, int B, int N, int M)
{
#pragma omp parallel for
	for (int b = 0; b < B; b++) {
		float *out = y + (size_t)b * M;
		for (int m = 0; m < M; m++)
			out[m] = 0;
		for (int n = 0; n < N; n++) {
			const float *row = x + ((size_t)b * N + n) * M;
#pragma omp simd
			for (int m = 0; m < M; m++)
				out[m] += row[m];
		}
	}
	return 0;
}
