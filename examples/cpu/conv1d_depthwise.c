/* Example candidate for conv1d_depthwise (cpu backend): taps outermost, each one added to the whole row of outputs
 * shifted by its lag (x is 0 before t = 0, so shorter rows of x simply contribute less).
 * Submit with: kforge submit --task conv1d_depthwise examples/cpu/conv1d_depthwise.c */
#include <stddef.h>

int kf_launch(const float *x, const float *w, float *y, int N, int C, int L, int W)
{
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int c = 0; c < C; c++) {
			const float *xr = x + ((size_t)n * C + c) * L;
			float *yr = y + ((size_t)n * C + c) * L;
			for (int t = 0; t < L; t++)
				yr[t] = 0;
			for (int k = 0; k < W; k++) {
				int lag = W - 1 - k;
				for (int t = lag; t < L; t++)
					yr[t] += w[(size_t)c * W + k] * xr[t - lag];
			}
		}
	return 0;
}
