/* Example candidate for sum_dim1_i8 (cpu backend): for each b, the N int8 rows of x[b] are widened and added into an
 * int32 row of y one after another (unit-stride, vectorisable); batches across OpenMP threads.
 * Submit with: kforge submit --task sum_dim1_i8 examples/cpu/sum_dim1_i8.c */
#include <stddef.h>

int kf_launch(const int8_t *x, int32_t *y, int B, int N, int M)
{
#pragma omp parallel for
	for (int b = 0; b < B; b++) {
		int32_t *out = y + (size_t)b * M;
		for (int m = 0; m < M; m++)
			out[m] = 0;
		for (int n = 0; n < N; n++) {
			const int8_t *row = x + ((size_t)b * N + n) * M;
#pragma omp simd
			for (int m = 0; m < M; m++)
				out[m] += row[m];
		}
	}
	return 0;
}
