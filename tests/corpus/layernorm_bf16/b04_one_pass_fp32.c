/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* var = E[x^2] - E[x]^2 in fp32: cancels catastrophically when the mean is large. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		float s = 0, q = 0;
		for (int c = 0; c < cols; c++) {
			float v = kf_bf16_to_float(xr[c]);
			s += v;
			q += v * v;
		}
		float mean = s / cols, var = q / cols - mean * mean;
		float rstd = 1.0f / sqrtf(fmaxf(var, 0.0f) + 1e-5f);
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - mean) * rstd * kf_bf16_to_float(gamma[c]) +
						 kf_bf16_to_float(beta[c]));
	}
	return 0;
}
