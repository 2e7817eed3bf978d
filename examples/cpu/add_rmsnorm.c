/* Example candidate for add_rmsnorm (cpu backend): one pass for the sums and the residual, one to normalise.
 * Submit with: kforge submit --task add_rmsnorm examples/cpu/add_rmsnorm.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *res, const kf_bf16 *gamma, kf_bf16 *h, kf_bf16 *y, int rows, int cols,
	      float eps)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		size_t base = (size_t)r * cols;
		float ss = 0;
		for (int c = 0; c < cols; c++) {
			float s = kf_bf16_to_float(x[base + c]) + kf_bf16_to_float(res[base + c]);
			h[base + c] = kf_float_to_bf16(s);
			ss += s * s;
		}
		float rstd = 1.0f / sqrtf(ss / cols + eps);
		for (int c = 0; c < cols; c++) {
			float s = kf_bf16_to_float(x[base + c]) + kf_bf16_to_float(res[base + c]);
			y[base + c] = kf_float_to_bf16(s * rstd * kf_bf16_to_float(gamma[c]));
		}
	}
	return 0;
}
