/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* Widths that are not a multiple of eight take a one-pass fp32 variance path (E[x^2] - E[x]^2), which
 * cancels when the mean is large. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		float mean, var;
		if (cols % 8) {
			float s = 0, q = 0;
			for (int c = 0; c < cols; c++) {
				float v = kf_bf16_to_float(xr[c]);
				s += v;
				q += v * v;
			}
			mean = s / cols;
			var = fmaxf(q / cols - mean * mean, 0.0f);
		} else {
			float s = 0;
			for (int c = 0; c < cols; c++)
				s += kf_bf16_to_float(xr[c]);
			mean = s / cols;
			var = 0;
			for (int c = 0; c < cols; c++) {
				float d = kf_bf16_to_float(xr[c]) - mean;
				var += d * d;
			}
			var /= cols;
		}
		float rstd = 1.0f / sqrtf(var + 1e-5f);
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - mean) * rstd * kf_bf16_to_float(gamma[c]) +
						 kf_bf16_to_float(beta[c]));
	}
	return 0;
}
