/* Example candidate for conv2d_pointwise_bf16 (cpu backend): per image, y[o, :] accumulates w[o, c] * x[c, :] over c
 * in an fp32 row (unit-stride, vectorisable), then rounds once; (n, o) rows across OpenMP threads.
 * Submit with: kforge submit --task conv2d_pointwise_bf16 examples/cpu/conv2d_pointwise_bf16.c */
#include <stdlib.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *w, kf_bf16 *y, int N, int C, int H, int W, int O)
{
	size_t hw = (size_t)H * W;
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int no = 0; no < N * O; no++) {
		int n = no / O, o = no % O;
		float *acc = calloc(hw ? hw : 1, sizeof *acc);
		if (!acc) {
			rc = 1;
			continue;
		}
		for (int c = 0; c < C; c++) {
			float wc = kf_bf16_to_float(w[(size_t)o * C + c]);
			const kf_bf16 *xr = x + ((size_t)n * C + c) * hw;
			for (size_t p = 0; p < hw; p++)
				acc[p] += wc * kf_bf16_to_float(xr[p]);
		}
		for (size_t p = 0; p < hw; p++)
			y[(size_t)no * hw + p] = kf_float_to_bf16(acc[p]);
		free(acc);
	}
	return rc;
}
