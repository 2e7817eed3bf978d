/* CPU reference for conv1d_depthwise: y[n, c, t] = sum_{k < W} w[c, k] * x[n, c, t - (W - 1) + k], x = 0 before
 * t = 0. The first W - 1 outputs of a row take the bounds-checked loop; the rest a loop whose inner sum over the
 * taps has no branch, so it vectorises over t. One (n, c) row per OpenMP iteration. */
#include <stddef.h>

int kf_launch(const float *x, const float *w, float *y, int N, int C, int L, int W)
{
	long long rows = (long long)N * C;
#pragma omp parallel for schedule(static)
	for (long long row = 0; row < rows; row++) {
		const float *xr = x + (size_t)row * L, *wr = w + (size_t)(row % C) * W;
		float *yr = y + (size_t)row * L;
		int head = W - 1 < L ? W - 1 : L;
		for (int t = 0; t < head; t++) {
			float sum = 0;
			for (int k = W - 1 - t; k < W; k++)
				sum += wr[k] * xr[t - (W - 1) + k];
			yr[t] = sum;
		}
#pragma omp simd
		for (int t = head; t < L; t++) {
			float sum = 0;
			for (int k = 0; k < W; k++)
				sum += wr[k] * xr[t - (W - 1) + k];
			yr[t] = sum;
		}
	}
	return 0;
}
