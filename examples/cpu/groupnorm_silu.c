/* Example candidate for groupnorm_silu (cpu backend): per (sample, group), a Welford pass for mean and variance, then
 * the affine SiLU. Submit with: kforge submit --task groupnorm_silu examples/cpu/groupnorm_silu.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *gamma, const float *beta, float *y, int N, int C, int H, int W, int G,
	      float eps)
{
	int cpg = C / G;
	size_t plane = (size_t)H * W, len = cpg * plane;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int g = 0; g < G; g++) {
			size_t base = ((size_t)n * C + (size_t)g * cpg) * plane;
			double mean = 0, m2 = 0;
			for (size_t k = 0; k < len; k++) {
				double d = x[base + k] - mean;
				mean += d / (double)(k + 1);
				m2 += d * (x[base + k] - mean);
			}
			float m = (float)mean, rstd = 1.0f / sqrtf((float)(m2 / len) + eps);
			for (size_t k = 0; k < len; k++) {
				int c = g * cpg + (int)(k / plane);
				float v = (x[base + k] - m) * rstd * gamma[c] + beta[c];
				y[base + k] = v / (1.0f + expf(-v));
			}
		}
	return 0;
}
