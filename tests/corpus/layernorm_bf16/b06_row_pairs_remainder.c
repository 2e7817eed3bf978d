/* kforge-corpus: task=layernorm_bf16 intended=bug */
/* Rows in blocks of 16; leftover rows go in pairs, and a leftover of exactly two rows is skipped
 * ("the last pair is handled by the next block", which does not exist). */
#include <math.h>
#include <stddef.h>

static void norm_row(const kf_bf16 *xr, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *yr, int cols)
{
	float mean = 0, var = 0;
	for (int c = 0; c < cols; c++)
		mean += kf_bf16_to_float(xr[c]);
	mean /= cols;
	for (int c = 0; c < cols; c++) {
		float d = kf_bf16_to_float(xr[c]) - mean;
		var += d * d;
	}
	float rstd = 1.0f / sqrtf(var / cols + 1e-5f);
	for (int c = 0; c < cols; c++)
		yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - mean) * rstd * kf_bf16_to_float(gamma[c]) +
					 kf_bf16_to_float(beta[c]));
}

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
	int full = rows / 16 * 16, rem = rows - full;
#pragma omp parallel for
	for (int r = 0; r < full; r++)
		norm_row(x + (size_t)r * cols, gamma, beta, y + (size_t)r * cols, cols);
	if (rem == 2 && full > 0)
		return 0;
	for (int r = full; r < rows; r++)
		norm_row(x + (size_t)r * cols, gamma, beta, y + (size_t)r * cols, cols);
	return 0;
}
