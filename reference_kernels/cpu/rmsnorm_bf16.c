/* CPU reference for rmsnorm_bf16: per row, the mean square in fp32 (vectorised), then
 * y = x * (1 / sqrt(mean square + 1e-6)) * gamma, rounded once to bf16. One row per OpenMP iteration. */
#include <math.h>
#include <stddef.h>

#define RMS_EPS 1e-6f

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *xr = x + (size_t)r * cols;
		kf_bf16 *yr = y + (size_t)r * cols;
		float ss = 0;
#pragma omp simd reduction(+ : ss)
		for (int c = 0; c < cols; c++) {
			float v = kf_bf16_to_float(xr[c]);
			ss += v * v;
		}
		float rstd = 1.0f / sqrtf(ss / (float)cols + RMS_EPS);
		for (int c = 0; c < cols; c++)
			yr[c] = kf_float_to_bf16(kf_bf16_to_float(xr[c]) * rstd * kf_bf16_to_float(gamma[c]));
	}
	return 0;
}
