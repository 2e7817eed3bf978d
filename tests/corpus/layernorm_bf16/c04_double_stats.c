/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* Statistics in double, normalisation in float. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		double s = 0, q = 0;
		for (int c = 0; c < cols; c++) {
			double v = kf_bf16_to_float(xr[c]);
			s += v;
			q += v * v;
		}
		double mean = s / cols, var = q / cols - mean * mean;
		float m = (float)mean, rstd = (float)(1.0 / sqrt((var > 0 ? var : 0) + 1e-5));
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - m) * rstd * kf_bf16_to_float(gamma[c]) +
						 kf_bf16_to_float(beta[c]));
	}
	return 0;
}
