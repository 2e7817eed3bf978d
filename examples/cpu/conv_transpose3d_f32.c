/* Example candidate for conv_transpose3d_f32 (cpu backend): the scatter form per output channel: for each tap, every
 * input voxel of the channel's group adds x * w at the output it reaches, over the input ranges that land inside the
 * output (found once per tap, no per-voxel bounds tests); each thread owns whole (n, o) output volumes.
 * Submit with: kforge submit --task conv_transpose3d_f32 examples/cpu/conv_transpose3d_f32.c */
#include <stddef.h>

/* The inputs i < in whose output i*S + off lies in [0, out): [*lo, *hi). */
static void span(int off, int S, int in, int out, int *lo, int *hi)
{
	*lo = off < 0 ? (-off + S - 1) / S : 0;
	*hi = out - 1 - off < 0 ? 0 : (out - 1 - off) / S + 1;
	if (*hi > in)
		*hi = in;
}

int kf_launch(const float *x, const float *w, float *y, int N, int C, int D, int H, int W, int O, int G, int K, int S,
	      int P)
{
	int OD = (D - 1) * S - 2 * P + K, OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K;
	int cg = C / G, og = O / G;
	size_t in_vol = (size_t)D * H * W, out_vol = (size_t)OD * OH * OW, taps = (size_t)K * K * K;
#pragma omp parallel for
	for (int no = 0; no < N * O; no++) {
		int n = no / O, o = no % O, g = o / og, m = o % og;
		float *yo = y + (size_t)no * out_vol;
		for (size_t p = 0; p < out_vol; p++)
			yo[p] = 0;
		for (int c = g * cg; c < (g + 1) * cg; c++) {
			const float *xc = x + ((size_t)n * C + c) * in_vol, *wc = w + ((size_t)c * og + m) * taps;
			for (int a = 0; a < K; a++)
				for (int b = 0; b < K; b++)
					for (int e = 0; e < K; e++) {
						float wk = wc[(a * K + b) * K + e];
						int i0, i1, j0, j1, l0, l1;
						span(a - P, S, D, OD, &i0, &i1);
						span(b - P, S, H, OH, &j0, &j1);
						span(e - P, S, W, OW, &l0, &l1);
						for (int i = i0; i < i1; i++)
							for (int j = j0; j < j1; j++) {
								const float *xs = xc + ((size_t)i * H + j) * W;
								float *ys = yo + ((size_t)(i * S + a - P) * OH + j * S + b - P) * OW;
								for (int l = l0; l < l1; l++)
									ys[l * S + e - P] += xs[l] * wk;
							}
					}
		}
	}
	return 0;
}
