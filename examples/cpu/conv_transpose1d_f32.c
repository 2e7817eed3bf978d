/* Example candidate for conv_transpose1d_f32 (cpu backend): the scatter form: each input x[n, c, i] adds
 * x * w[c, o, k] at output q = i*S - P + k*DIL, over the range of i that lands inside the row (found once per tap,
 * so the inner loop has no branch); each thread owns whole (n, o) output rows, so no two write the same element.
 * Submit with: kforge submit --task conv_transpose1d_f32 examples/cpu/conv_transpose1d_f32.c */
#include <stddef.h>

int kf_launch(const float *x, const float *w, float *y, int N, int C, int L, int O, int K, int S, int P, int OP, int DIL)
{
	int OL = (L - 1) * S - 2 * P + DIL * (K - 1) + OP + 1;
#pragma omp parallel for
	for (int no = 0; no < N * O; no++) {
		int n = no / O, o = no % O;
		float *yr = y + (size_t)no * OL;
		for (int q = 0; q < OL; q++)
			yr[q] = 0;
		for (int c = 0; c < C; c++) {
			const float *xr = x + ((size_t)n * C + c) * L;
			for (int k = 0; k < K; k++) {
				float wk = w[((size_t)c * O + o) * K + k];
				int off = k * DIL - P; /* input i lands at q = i*S + off */
				int lo = off < 0 ? (-off + S - 1) / S : 0, hi = OL - 1 - off < 0 ? 0 : (OL - 1 - off) / S + 1;
				if (hi > L)
					hi = L;
				for (int i = lo; i < hi; i++)
					yr[i * S + off] += xr[i] * wk;
			}
		}
	}
	return 0;
}
