/* fp64 oracle for long_conv: y[b, c, t] = sum_{s=0..t} k[c, s] x[b, c, t - s]. */
#include <stddef.h>

int kf_oracle(const double *x, const double *k, double *y, int B, int C, int L)
{
	for (int b = 0; b < B; b++)
		for (int c = 0; c < C; c++) {
			const double *xr = x + ((size_t)b * C + c) * L, *kc = k + (size_t)c * L;
			double *yr = y + ((size_t)b * C + c) * L;
			for (int t = 0; t < L; t++) {
				double acc = 0;
				for (int s = 0; s <= t; s++)
					acc += kc[s] * xr[t - s];
				yr[t] = acc;
			}
		}
	return 0;
}
