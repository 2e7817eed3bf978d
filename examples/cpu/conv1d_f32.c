/* Example candidate for conv1d_f32 (cpu backend): for each (n, o) an output row accumulates one (c, k) tap at a time
 * over the range of outputs whose input position is in bounds (computed once per tap, so the inner loop has no
 * branch); (n, o) rows across OpenMP threads.
 * Submit with: kforge submit --task conv1d_f32 examples/cpu/conv1d_f32.c */
#include <stddef.h>

int kf_launch(const float *x, const float *w, float *y, int N, int C, int L, int O, int K, int S, int P, int DIL)
{
	int OL = (L + 2 * P - DIL * (K - 1) - 1) / S + 1;
#pragma omp parallel for
	for (int no = 0; no < N * O; no++) {
		int n = no / O, o = no % O;
		float *yr = y + (size_t)no * OL;
		for (int i = 0; i < OL; i++)
			yr[i] = 0;
		for (int c = 0; c < C; c++) {
			const float *xr = x + ((size_t)n * C + c) * L;
			for (int k = 0; k < K; k++) {
				float wk = w[((size_t)o * C + c) * K + k];
				int off = k * DIL - P; /* input position of output i is i*S + off */
				int lo = off < 0 ? (-off + S - 1) / S : 0, hi = (L - 1 - off) / S + 1;
				if (L - 1 - off < 0)
					continue;
				if (hi > OL)
					hi = OL;
				for (int i = lo; i < hi; i++)
					yr[i] += wk * xr[i * S + off];
			}
		}
	}
	return 0;
}
