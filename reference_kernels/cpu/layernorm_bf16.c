/* CPU reference for layernorm_bf16: per row, mean and biased variance in fp32 (two passes,
 * so a large mean does not cancel), then y = (x - mean) / sqrt(var + eps) * gamma + beta,
 * rounded once to bf16. One row per OpenMP iteration. */
#include <math.h>
#include <stddef.h>

#define LN_EPS 1e-5f

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows,
	      int cols)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		float sum = 0, sq = 0;
#pragma omp simd reduction(+ : sum)
		for (int c = 0; c < cols; c++)
			sum += kf_bf16_to_float(xr[c]);
		float mean = sum / (float)cols;
#pragma omp simd reduction(+ : sq)
		for (int c = 0; c < cols; c++) {
			float d = kf_bf16_to_float(xr[c]) - mean;
			sq += d * d;
		}
		float rstd = 1.0f / sqrtf(sq / (float)cols + LN_EPS);
		for (int c = 0; c < cols; c++) {
			float xhat = (kf_bf16_to_float(xr[c]) - mean) * rstd;
			yr[c] = kf_float_to_bf16(xhat * kf_bf16_to_float(gamma[c]) + kf_bf16_to_float(beta[c]));
		}
	}
	return 0;
}
