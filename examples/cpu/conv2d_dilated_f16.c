/* Example candidate for conv2d_dilated_f16 (cpu backend): x and w are widened to fp32 once (so the inner loops do no
 * conversions), then direct loops with out-of-image taps skipped; (n, o) planes across OpenMP threads.
 * Submit with: kforge submit --task conv2d_dilated_f16 examples/cpu/conv2d_dilated_f16.c */
#include <stdlib.h>

int kf_launch(const kf_f16 *x, const kf_f16 *w, kf_f16 *y, int N, int C, int H, int W, int O, int KH, int KW, int S,
	      int PH, int PW, int DH, int DW)
{
	int OH = (H + 2 * PH - DH * (KH - 1) - 1) / S + 1, OW = (W + 2 * PW - DW * (KW - 1) - 1) / S + 1;
	size_t nx = (size_t)N * C * H * W, nw = (size_t)O * C * KH * KW;
	float *xf = malloc(sizeof *xf * (nx ? nx : 1)), *wf = malloc(sizeof *wf * (nw ? nw : 1));
	if (!xf || !wf) {
		free(xf);
		free(wf);
		return 1;
	}
	for (size_t i = 0; i < nx; i++)
		xf[i] = kf_f16_to_float(x[i]);
	for (size_t i = 0; i < nw; i++)
		wf[i] = kf_f16_to_float(w[i]);
#pragma omp parallel for
	for (int no = 0; no < N * O; no++) {
		int n = no / O, o = no % O;
		for (int i = 0; i < OH; i++)
			for (int j = 0; j < OW; j++) {
				float acc = 0;
				for (int c = 0; c < C; c++) {
					const float *xc = xf + ((size_t)n * C + c) * H * W;
					const float *wc = wf + ((size_t)o * C + c) * KH * KW;
					for (int a = 0; a < KH; a++) {
						int h = i * S - PH + a * DH;
						if (h < 0 || h >= H)
							continue;
						for (int b = 0; b < KW; b++) {
							int v = j * S - PW + b * DW;
							if (v >= 0 && v < W)
								acc += wc[a * KW + b] * xc[(size_t)h * W + v];
						}
					}
				}
				y[((size_t)no * OH + i) * OW + j] = kf_float_to_f16(acc);
			}
	}
	free(xf);
	free(wf);
	return 0;
}
