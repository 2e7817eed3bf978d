/* Example candidate for argmax_dim0_bf16 (cpu backend): the columns are split into blocks across OpenMP threads;
 * each keeps a running maximum and its first row index per column (strict >), reading rows in order.
 * Submit with: kforge submit --task argmax_dim0_bf16 examples/cpu/argmax_dim0_bf16.c */
#include <stddef.h>

#define SLICE 256 /* columns per block */

int kf_launch(const kf_bf16 *x, int32_t *idx, int N, int M)
{
#pragma omp parallel for
	for (int m0 = 0; m0 < M; m0 += SLICE) {
		float best[SLICE];
		int w = M - m0 < SLICE ? M - m0 : SLICE;
		for (int j = 0; j < w; j++) {
			best[j] = kf_bf16_to_float(x[m0 + j]);
			idx[m0 + j] = 0;
		}
		for (int n = 1; n < N; n++)
			for (int j = 0; j < w; j++) {
				float v = kf_bf16_to_float(x[(size_t)n * M + m0 + j]);
				if (v > best[j]) {
					best[j] = v;
					idx[m0 + j] = n;
				}
			}
	}
	return 0;
}
