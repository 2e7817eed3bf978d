/* CPU reference for cumsum_rows: a running sum in double along each row (one rounding per output), one row per
 * OpenMP iteration. */
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		double sum = 0;
		for (int c = 0; c < cols; c++) {
			sum += xr[c];
			o[c] = (float)sum;
		}
	}
	return 0;
}
