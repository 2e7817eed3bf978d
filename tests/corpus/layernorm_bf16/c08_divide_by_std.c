/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* Divides by the standard deviation instead of multiplying by its reciprocal. */
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
		for (int c = 0; c < cols; c++)
			var += (kf_bf16_to_float(xr[c]) - mean) * (kf_bf16_to_float(xr[c]) - mean);
		float sd = sqrtf(var / cols + 1e-5f);
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - mean) / sd * kf_bf16_to_float(gamma[c]) +
						 kf_bf16_to_float(beta[c]));
	}
	return 0;
}
