/* Example candidate for batch_norm_f32 (cpu backend): channels across OpenMP threads; per channel a shifted
 * single pass (sums of x - x0 and its square, x0 the channel's first value, so a large mean does not cancel), then
 * y = x * scale + shift with the affine folded in.
 * Submit with: kforge submit --task batch_norm_f32 examples/cpu/batch_norm_f32.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *gamma, const float *beta, float *y, int N, int C, int H, int W, float eps)
{
	size_t plane = (size_t)H * W, count = (size_t)N * plane;
#pragma omp parallel for
	for (int c = 0; c < C; c++) {
		const float x0 = x[(size_t)c * plane];
		double s = 0, ss = 0;
		for (int n = 0; n < N; n++) {
			const float *p = x + ((size_t)n * C + c) * plane;
			for (size_t i = 0; i < plane; i++) {
				double d = p[i] - x0;
				s += d;
				ss += d * d;
			}
		}
		double mean = s / count, var = ss / count - mean * mean;
		float scale = (float)(gamma[c] / sqrt(var + eps)), shift = (float)(beta[c] - (x0 + mean) * scale);
		for (int n = 0; n < N; n++) {
			const float *p = x + ((size_t)n * C + c) * plane;
			float *q = y + ((size_t)n * C + c) * plane;
			for (size_t i = 0; i < plane; i++)
				q[i] = p[i] * scale + shift;
		}
	}
	return 0;
}
