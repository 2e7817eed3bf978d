/* Example candidate for maxpool1d_f16 (cpu backend): each output takes the max of the window taps that land inside
 * the row (fp32 compares, exact for fp16 values); (n, c) rows across OpenMP threads.
 * Submit with: kforge submit --task maxpool1d_f16 examples/cpu/maxpool1d_f16.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_f16 *x, kf_f16 *y, int N, int C, int L, int K, int S, int P, int DIL)
{
	int OL = (L + 2 * P - DIL * (K - 1) - 1) / S + 1;
#pragma omp parallel for
	for (int r = 0; r < N * C; r++) {
		const kf_f16 *xr = x + (size_t)r * L;
		for (int i = 0; i < OL; i++) {
			float best = -INFINITY;
			for (int k = 0; k < K; k++) {
				int at = i * S - P + k * DIL;
				if (at >= 0 && at < L && kf_f16_to_float(xr[at]) > best)
					best = kf_f16_to_float(xr[at]);
			}
			y[(size_t)r * OL + i] = kf_float_to_f16(best);
		}
	}
	return 0;
}
