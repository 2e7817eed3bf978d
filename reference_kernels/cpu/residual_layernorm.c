/* CPU reference for residual_layernorm: per row, s = x + res in fp32; h = s rounded to bf16; mean and biased variance
 * of s in two passes (so a large mean does not cancel); y = (s - mean) / sqrt(var + 1e-5) * gamma + beta, rounded
 * once. One row per OpenMP iteration. */
#include <math.h>
#include <stddef.h>

#define LN_EPS 1e-5f

int kf_launch(const kf_bf16 *x, const kf_bf16 *res, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *h,
	      kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols, *rr = res + (size_t)r * cols;
		kf_bf16 *hr = h + (size_t)r * cols, *yr = y + (size_t)r * cols;
		float sum = 0, sq = 0;
		for (int c = 0; c < cols; c++) {
			float s = kf_bf16_to_float(xr[c]) + kf_bf16_to_float(rr[c]);
			hr[c] = kf_float_to_bf16(s);
			sum += s;
		}
		float mean = sum / (float)cols;
		for (int c = 0; c < cols; c++) {
			float d = kf_bf16_to_float(xr[c]) + kf_bf16_to_float(rr[c]) - mean;
			sq += d * d;
		}
		float rstd = 1.0f / sqrtf(sq / (float)cols + LN_EPS);
		for (int c = 0; c < cols; c++) {
			float s = kf_bf16_to_float(xr[c]) + kf_bf16_to_float(rr[c]);
			yr[c] = kf_float_to_bf16((s - mean) * rstd * kf_bf16_to_float(gamma[c]) + kf_bf16_to_float(beta[c]));
		}
	}
	return 0;
}
