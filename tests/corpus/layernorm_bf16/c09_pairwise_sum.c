/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* Pairwise (recursive halving) sums for the mean and the variance. */
#include <math.h>
#include <stddef.h>

static float psum(const kf_bf16 *v, int n, float sub)
{
	if (n <= 16) {
		float s = 0;
		for (int i = 0; i < n; i++) {
			float d = kf_bf16_to_float(v[i]) - sub;
			s += sub == 0 ? d : d * d;
		}
		return s;
	}
	return psum(v, n / 2, sub) + psum(v + n / 2, n - n / 2, sub);
}

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		float mean = psum(xr, cols, 0) / cols;
		float var = 0;
		for (int c = 0; c < cols; c++) {
			float d = kf_bf16_to_float(xr[c]) - mean;
			var += d * d;
		}
		float rstd = 1.0f / sqrtf(var / cols + 1e-5f);
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16((kf_bf16_to_float(xr[c]) - mean) * rstd * kf_bf16_to_float(gamma[c]) +
						 kf_bf16_to_float(beta[c]));
	}
	return 0;
}
