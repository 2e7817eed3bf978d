/* Example candidate for cummax_rows_f32 (cpu backend): a running maximum along each row; rows across OpenMP threads.
 * Submit with: kforge submit --task cummax_rows_f32 examples/cpu/cummax_rows_f32.c */
#include <stddef.h>

int kf_launch(const float *x, float *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		float *yr = y + (size_t)r * cols;
		float best = xr[0];
		for (int c = 0; c < cols; c++) {
			best = xr[c] > best ? xr[c] : best;
			yr[c] = best;
		}
	}
	return 0;
}
