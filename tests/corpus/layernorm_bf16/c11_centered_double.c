/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* Two passes in double, output computed in double and rounded once. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		double mean = 0, var = 0;
		for (int c = 0; c < cols; c++)
			mean += kf_bf16_to_float(xr[c]);
		mean /= cols;
		for (int c = 0; c < cols; c++) {
			double d = kf_bf16_to_float(xr[c]) - mean;
			var += d * d;
		}
		double rstd = 1.0 / sqrt(var / cols + 1e-5);
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((float)((kf_bf16_to_float(xr[c]) - mean) * rstd * kf_bf16_to_float(gamma[c]) +
							 kf_bf16_to_float(beta[c])));
	}
	return 0;
}
