/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* Welford's running mean and M2. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		float mean = 0, m2 = 0;
		for (int c = 0; c < cols; c++) {
			float v = kf_bf16_to_float(xr[c]), d = v - mean;
			mean += d / (c + 1);
			m2 += d * (v - mean);
		}
		float rstd = 1.0f / sqrtf(m2 / cols + 1e-5f);
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - mean) * rstd * kf_bf16_to_float(gamma[c]) +
						 kf_bf16_to_float(beta[c]));
	}
	return 0;
}
