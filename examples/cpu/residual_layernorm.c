/* Example candidate for residual_layernorm (cpu backend): one Welford pass over s = x + res for the mean and variance
 * (stable for a large mean), writing h as it goes, then the normalising pass; rows split across OpenMP threads.
 * Submit with: kforge submit --task residual_layernorm examples/cpu/residual_layernorm.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *res, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *h,
	      kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		size_t off = (size_t)r * cols;
		double mean = 0, m2 = 0;
		for (int c = 0; c < cols; c++) {
			double s = (double)kf_bf16_to_float(x[off + c]) + kf_bf16_to_float(res[off + c]);
			h[off + c] = kf_float_to_bf16((float)s);
			double d = s - mean;
			mean += d / (c + 1);
			m2 += d * (s - mean);
		}
		float mu = (float)mean, rstd = (float)(1.0 / sqrt(m2 / cols + 1e-5));
		for (int c = 0; c < cols; c++) {
			float s = kf_bf16_to_float(x[off + c]) + kf_bf16_to_float(res[off + c]);
			y[off + c] = kf_float_to_bf16((s - mu) * rstd * kf_bf16_to_float(gamma[c]) + kf_bf16_to_float(beta[c]));
		}
	}
	return 0;
}
