/* CPU reference for softmax_rows: out[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).
 * One row per OpenMP iteration. Subtracting the row max keeps every exp finite; the sum is
 * accumulated in double so the reference adds almost nothing to the candidate's error. */
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
		for (int c = 0; c < cols; c++) {
			o[c] = expf(xr[c] - max);
			sum += o[c];
		}
		float inv = (float)(1.0 / sum);
#pragma omp simd
		for (int c = 0; c < cols; c++)
			o[c] *= inv;
	}
	return 0;
}
