/* Example candidate for min_channel_f32 (cpu backend): each image's H*W plane of y starts as channel 0 and takes the
 * elementwise min with each further channel plane; images split across OpenMP threads.
 * Submit with: kforge submit --task min_channel_f32 examples/cpu/min_channel_f32.c */
#include <stddef.h>

int kf_launch(const float *x, float *y, int N, int C, int H, int W)
{
	size_t plane = (size_t)H * W;
#pragma omp parallel for
	for (int n = 0; n < N; n++) {
		float *out = y + n * plane;
		const float *xn = x + (size_t)n * C * plane;
		for (size_t p = 0; p < plane; p++)
			out[p] = xn[p];
		for (int c = 1; c < C; c++)
#pragma omp simd
			for (size_t p = 0; p < plane; p++)
				out[p] = xn[c * plane + p] < out[p] ? xn[c * plane + p] : out[p];
	}
	return 0;
}
