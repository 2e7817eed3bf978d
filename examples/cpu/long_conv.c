/* Example candidate for long_conv (cpu backend): the direct sum per output, y[t] = sum_{s<=t} k[s] x[t-s] as a dot
 * product; outputs split across OpenMP threads.
 * Submit with: kforge submit --task long_conv examples/cpu/long_conv.c */
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const float *k, kf_bf16 *y, int B, int C, int L)
{
#pragma omp parallel for schedule(dynamic, 64)
	for (long long o = 0; o < (long long)B * C * L; o++) {
		int t = (int)(o % L), c = (int)(o / L % C);
		const kf_bf16 *xr = x + (size_t)(o - t);
		const float *kc = k + (size_t)c * L;
		float acc = 0;
		for (int s = 0; s <= t; s++)
			acc += kc[s] * kf_bf16_to_float(xr[t - s]);
		y[o] = kf_float_to_bf16(acc);
	}
	return 0;
}
