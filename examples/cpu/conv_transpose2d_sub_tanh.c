/* Example candidate for conv_transpose2d_sub_tanh (cpu backend): scatter form, each input pixel adds its 3x3 weighted
 * footprint into the doubled output plane (started at the bias difference), then tanh. Submit with:
 * kforge submit --task conv_transpose2d_sub_tanh examples/cpu/conv_transpose2d_sub_tanh.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *w, const float *cb, const float *bias, float *y, int N, int C, int H, int W,
	      int O)
{
	int OH = 2 * H, OW = 2 * W;
	size_t plane = (size_t)OH * OW;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++) {
			float *yp = y + ((size_t)n * O + o) * plane;
			for (size_t k = 0; k < plane; k++)
				yp[k] = cb[o] - bias[o];
			for (int c = 0; c < C; c++)
				for (int i = 0; i < H; i++)
					for (int j = 0; j < W; j++) {
						float v = x[(((size_t)n * C + c) * H + i) * W + j];
						for (int a = 0; a < 3; a++)
							for (int e = 0; e < 3; e++) {
								int r = 2 * i - 1 + a, s = 2 * j - 1 + e;
								if (r >= 0 && r < OH && s >= 0 && s < OW)
									yp[(size_t)r * OW + s] += v * w[(((size_t)c * O + o) * 3 + a) * 3 + e];
							}
					}
			for (size_t k = 0; k < plane; k++)
				yp[k] = tanhf(yp[k]);
		}
	return 0;
}
