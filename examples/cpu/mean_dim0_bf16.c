/* Example candidate for mean_dim0_bf16 (cpu backend): the columns are split into blocks across OpenMP threads; each
 * thread adds its slice of every row into an fp32 accumulator, then scales by 1/N and rounds once.
 * Submit with: kforge submit --task mean_dim0_bf16 examples/cpu/mean_dim0_bf16.c */
#include <stddef.h>

#define SLICE 256 /* columns per accumulator block: fits in L1 beside the streamed rows */

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int N, int D)
{
#pragma omp parallel for
	for (int d0 = 0; d0 < D; d0 += SLICE) {
		float acc[SLICE] = { 0 };
		int w = D - d0 < SLICE ? D - d0 : SLICE;
		for (int n = 0; n < N; n++) {
			const kf_bf16 *row = x + (size_t)n * D + d0;
			for (int j = 0; j < w; j++)
				acc[j] += kf_bf16_to_float(row[j]);
		}
		for (int j = 0; j < w; j++)
			y[d0 + j] = kf_float_to_bf16(acc[j] / (float)N);
	}
	return 0;
}
