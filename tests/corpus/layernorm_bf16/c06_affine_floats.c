/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* gamma and beta widened to float once per call. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
	float *g = malloc(sizeof(float) * (size_t)cols), *b = malloc(sizeof(float) * (size_t)cols);
	if (!g || !b) {
		free(g);
		free(b);
		return 1;
	}
	for (int c = 0; c < cols; c++) {
		g[c] = kf_bf16_to_float(gamma[c]);
		b[c] = kf_bf16_to_float(beta[c]);
	}
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
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - mean) * rstd * g[c] + b[c]);
	}
	free(g);
	free(b);
	return 0;
}
