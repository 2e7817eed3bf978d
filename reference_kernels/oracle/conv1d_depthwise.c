/* fp64 oracle for conv1d_depthwise: y[n, c, t] = sum_{k < W} w[c, k] * x[n, c, t - (W - 1) + k], x = 0 before t = 0. */
#include <stddef.h>

int kf_oracle(const double *x, const double *w, double *y, int N, int C, int L, int W)
{
	for (int n = 0; n < N; n++)
		for (int c = 0; c < C; c++) {
			const double *xr = x + ((size_t)n * C + c) * L;
			for (int t = 0; t < L; t++) {
				double sum = 0;
				for (int k = 0; k < W; k++) {
					int src = t - (W - 1) + k;
					if (src >= 0)
						sum += w[(size_t)c * W + k] * xr[src];
				}
				y[((size_t)n * C + c) * L + t] = sum;
			}
		}
	return 0;
}
