/* Example candidate for rms_norm_channel_f32 (cpu backend): per image, the channel planes' squares are added into one
 * plane of accumulators (unit-stride), turned into reciprocal RMS values, and every channel plane is scaled by them;
 * images across OpenMP threads.
 * Submit with: kforge submit --task rms_norm_channel_f32 examples/cpu/rms_norm_channel_f32.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const float *x, float *y, int N, int C, int H, int W, float eps)
{
	size_t plane = (size_t)H * W;
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * C * plane;
		float *yn = y + (size_t)n * C * plane, *inv = calloc(plane ? plane : 1, sizeof *inv);
		if (!inv) {
			rc = 1;
			continue;
		}
		for (int c = 0; c < C; c++)
			for (size_t p = 0; p < plane; p++)
				inv[p] += xn[c * plane + p] * xn[c * plane + p];
		for (size_t p = 0; p < plane; p++)
			inv[p] = 1.0f / sqrtf(inv[p] / (float)C + eps);
		for (int c = 0; c < C; c++)
			for (size_t p = 0; p < plane; p++)
				yn[c * plane + p] = xn[c * plane + p] * inv[p];
		free(inv);
	}
	return rc;
}
