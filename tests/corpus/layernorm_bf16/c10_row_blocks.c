/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* Blocks of eight rows per task; the last block clipped. */
#include <math.h>
#include <stddef.h>

#define ROWS_PER_BLOCK 8

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
	int nb = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
#pragma omp parallel for
	for (int b = 0; b < nb; b++) {
		int r1 = (b + 1) * ROWS_PER_BLOCK < rows ? (b + 1) * ROWS_PER_BLOCK : rows;
		for (int r = b * ROWS_PER_BLOCK; r < r1; r++) {
			const kf_bf16 *xr = x + (size_t)r * cols;
			kf_bf16 *yr = y + (size_t)r * cols;
			double mean = 0, var = 0;
			for (int c = 0; c < cols; c++)
				mean += kf_bf16_to_float(xr[c]);
			mean /= cols;
			for (int c = 0; c < cols; c++)
				var += (kf_bf16_to_float(xr[c]) - mean) * (kf_bf16_to_float(xr[c]) - mean);
			float rstd = (float)(1.0 / sqrt(var / cols + 1e-5)), m = (float)mean;
			for (int c = 0; c < cols; c++)
				yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - m) * rstd * kf_bf16_to_float(gamma[c]) +
							 kf_bf16_to_float(beta[c]));
		}
	}
	return 0;
}
