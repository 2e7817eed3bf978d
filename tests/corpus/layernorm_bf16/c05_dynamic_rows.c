/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* Rows scheduled dynamically; two passes for the statistics. */
#include <math.h>
#include <stddef.h>

static void norm_row(const kf_bf16 *xr, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *yr, int cols)
{
	float mean = 0, var = 0;
	for (int c = 0; c < cols; c++)
		mean += kf_bf16_to_float(xr[c]);
	mean /= (float)cols;
	for (int c = 0; c < cols; c++) {
		float d = kf_bf16_to_float(xr[c]) - mean;
		var += d * d;
	}
	var /= (float)cols;
	float rstd = 1.0f / sqrtf(var + 1e-5f);
	for (int c = 0; c < cols; c++) {
		float v = (kf_bf16_to_float(xr[c]) - mean) * rstd;
		yr[c] = kf_float_to_bf16(v * kf_bf16_to_float(gamma[c]) + kf_bf16_to_float(beta[c]));
	}
}

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for schedule(dynamic, 2)
	for (int r = 0; r < rows; r++)
		norm_row(x + (size_t)r * cols, gamma, beta, y + (size_t)r * cols, cols);
	return 0;
}
