/* Example candidate for conv2d_general (cpu backend): plain loops. Submit with:
 * kforge submit --task conv2d_general examples/cpu/conv2d_general.c */
#include <stddef.h>

int kf_launch(const float *x, const float *w, float *y, int N, int C, int H, int W, int O, int G, int KH, int KW,
	      int SH, int SW, int PH, int PW)
{
	int OH = (H + 2 * PH - KH) / SH + 1, OW = (W + 2 * PW - KW) / SW + 1, cg = C / G, og = O / G;
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++)
			for (int i = 0; i < OH; i++)
				for (int j = 0; j < OW; j++) {
					float sum = 0;
					for (int c = 0; c < cg; c++)
						for (int a = 0; a < KH; a++)
							for (int b = 0; b < KW; b++) {
								int hi = i * SH - PH + a, wi = j * SW - PW + b;
								if (hi < 0 || hi >= H || wi < 0 || wi >= W)
									continue;
								sum += w[((size_t)(o * cg + c) * KH + a) * KW + b] *
								       x[(((size_t)n * C + (o / og) * cg + c) * H + hi) * W + wi];
							}
					y[(((size_t)n * O + o) * OH + i) * OW + j] = sum;
				}
	return 0;
}
