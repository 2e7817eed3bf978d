/* Example candidate for instance_norm (cpu backend): plain loops. Submit with:
 * kforge submit --task instance_norm examples/cpu/instance_norm.c */
#include <stddef.h>
#include <math.h>

int kf_launch(const float *x, float *y, int N, int C, int H, int W, float eps)
{
	size_t n = (size_t)H * W;
	for (size_t p = 0; p < (size_t)N * C; p++) {
		const float *xp = x + p * n;
		double mean = 0, var = 0; /* two passes: E[x^2] - E[x]^2 cancels at a large mean */
		for (size_t i = 0; i < n; i++)
			mean += xp[i];
		mean /= (double)n;
		for (size_t i = 0; i < n; i++)
			var += (xp[i] - mean) * (xp[i] - mean);
		float inv = (float)(1 / sqrt(var / (double)n + eps));
		for (size_t i = 0; i < n; i++)
			y[p * n + i] = (float)(xp[i] - mean) * inv;
	}
	return 0;
}
