/* Example candidate for l1_norm_rows_f32 (cpu backend): per row, the sum of |x| in double, then one reciprocal and a
 * multiply per element; rows across OpenMP threads.
 * Submit with: kforge submit --task l1_norm_rows_f32 examples/cpu/l1_norm_rows_f32.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		double s = 0;
		for (int c = 0; c < cols; c++)
			s += fabsf(xr[c]);
		const double inv = 1 / s;
		for (int c = 0; c < cols; c++)
			y[(size_t)r * cols + c] = (float)(xr[c] * inv);
	}
	return 0;
}
