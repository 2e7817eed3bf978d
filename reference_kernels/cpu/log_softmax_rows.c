/* CPU reference for log_softmax_rows: out = (x - max) - log(sum exp(x - max)) per row; the sum is accumulated in
 * double, and (x - max) is formed before the log is subtracted, so outputs near 0 keep their precision.
 * One row per OpenMP iteration. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float max = -INFINITY;
#pragma omp simd reduction(max : max)
		for (int c = 0; c < cols; c++)
			max = xr[c] > max ? xr[c] : max;
		double sum = 0;
		for (int c = 0; c < cols; c++)
			sum += expf(xr[c] - max);
		float log_sum = (float)log(sum);
#pragma omp simd
		for (int c = 0; c < cols; c++)
			o[c] = (xr[c] - max) - log_sum;
	}
	return 0;
}
