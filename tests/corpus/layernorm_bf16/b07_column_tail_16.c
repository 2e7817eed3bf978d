/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* The normalising pass runs in blocks of 64 columns with a 32-wide and a scalar tail; a leftover of
 * 16..31 columns falls between them. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		float mean = 0, var = 0;
		for (int c = 0; c < cols; c++)
			mean += kf_bf16_to_float(xr[c]);
		mean /= cols;
		for (int c = 0; c < cols; c++) {
			float d = kf_bf16_to_float(xr[c]) - mean;
			var += d * d;
		}
		float rstd = 1.0f / sqrtf(var / cols + 1e-5f);
		int c = 0;
		for (; c + 64 <= cols; c += 64)
			for (int k = c; k < c + 64; k++)
				yr[k] = kf_float_to_bf16((kf_bf16_to_float(xr[k]) - mean) * rstd * kf_bf16_to_float(gamma[k]) +
							 kf_bf16_to_float(beta[k]));
		int rem = cols - c;
		if (rem >= 32) {
			for (int k = c; k < cols; k++)
				yr[k] = kf_float_to_bf16((kf_bf16_to_float(xr[k]) - mean) * rstd * kf_bf16_to_float(gamma[k]) +
							 kf_bf16_to_float(beta[k]));
		} else if (rem < 16) {
			for (int k = c; k < cols; k++)
				yr[k] = kf_float_to_bf16((kf_bf16_to_float(xr[k]) - mean) * rstd * kf_bf16_to_float(gamma[k]) +
							 kf_bf16_to_float(beta[k]));
		}
	}
	return 0;
}
