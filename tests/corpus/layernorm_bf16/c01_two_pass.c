/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* Mean, then variance around it (two passes), then normalise; rows across threads. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		float sum = 0, sq = 0;
		for (int c = 0; c < cols; c++)
			sum += kf_bf16_to_float(xr[c]);
		float mean = sum / cols;
		for (int c = 0; c < cols; c++) {
			float d = kf_bf16_to_float(xr[c]) - mean;
			sq += d * d;
		}
		float rstd = 1.0f / sqrtf(sq / cols + 1e-5f);
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - mean) * rstd * kf_bf16_to_float(gamma[c]) +
						 kf_bf16_to_float(beta[c]));
	}
	return 0;
}
