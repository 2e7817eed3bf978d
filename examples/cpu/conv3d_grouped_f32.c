/* Example candidate for conv3d_grouped_f32 (cpu backend): direct loops, with the window's in-volume range along each
 * axis computed once per output (no per-tap bounds test); (n, o) volumes across OpenMP threads.
 * Submit with: kforge submit --task conv3d_grouped_f32 examples/cpu/conv3d_grouped_f32.c */
#include <stddef.h>

static void taps(int start, int k, int extent, int *lo, int *hi)
{
	*lo = start < 0 ? -start : 0;
	*hi = extent - start < k ? extent - start : k;
}

int kf_launch(const float *x, const float *w, float *y, int N, int C, int D, int H, int W, int O, int G, int K, int S,
	      int P)
{
	int OD = (D + 2 * P - K) / S + 1, OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
	int cg = C / G, og = O / G;
#pragma omp parallel for
	for (int no = 0; no < N * O; no++) {
		int n = no / O, o = no % O, g = o / og;
		float *yo = y + (size_t)no * OD * OH * OW;
		for (int i = 0; i < OD; i++)
			for (int j = 0; j < OH; j++)
				for (int l = 0; l < OW; l++) {
					int a0, a1, b0, b1, e0, e1;
					taps(i * S - P, K, D, &a0, &a1);
					taps(j * S - P, K, H, &b0, &b1);
					taps(l * S - P, K, W, &e0, &e1);
					float acc = 0;
					for (int c = 0; c < cg; c++) {
						const float *xc = x + ((size_t)n * C + g * cg + c) * D * H * W;
						const float *wc = w + ((size_t)o * cg + c) * K * K * K;
						for (int a = a0; a < a1; a++)
							for (int b = b0; b < b1; b++)
								for (int e = e0; e < e1; e++)
									acc += wc[(a * K + b) * K + e] *
									       xc[((size_t)(i * S - P + a) * H + j * S - P + b) * W +
										  l * S - P + e];
					}
					yo[((size_t)i * OH + j) * OW + l] = acc;
				}
	}
	return 0;
}
