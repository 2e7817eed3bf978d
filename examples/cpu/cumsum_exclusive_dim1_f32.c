/* Example candidate for cumsum_exclusive_dim1_f32 (cpu backend): row n of y[b] is row n-1 of y[b] plus row n-1 of
 * x[b] (row 0 is zeros), whole rows at a time so the inner loop is unit-stride; batches across OpenMP threads.
 * Submit with: kforge submit --task cumsum_exclusive_dim1_f32 examples/cpu/cumsum_exclusive_dim1_f32.c */
#include <stddef.h>

int kf_launch(const float *x, float *y, int B, int N, int M)
{
#pragma omp parallel for
	for (int b = 0; b < B; b++) {
		const float *xb = x + (size_t)b * N * M;
		float *yb = y + (size_t)b * N * M;
		for (int m = 0; m < M && N > 0; m++)
			yb[m] = 0;
		for (int n = 1; n < N; n++)
#pragma omp simd
			for (int m = 0; m < M; m++)
				yb[(size_t)n * M + m] = yb[(size_t)(n - 1) * M + m] + xb[(size_t)(n - 1) * M + m];
	}
	return 0;
}
