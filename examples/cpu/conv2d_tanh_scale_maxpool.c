/* Example candidate for conv2d_tanh_scale_maxpool (cpu backend): each pooled output computes its 2x2 window of
 * convolutions directly (no intermediate tensor). Submit with:
 * kforge submit --task conv2d_tanh_scale_maxpool examples/cpu/conv2d_tanh_scale_maxpool.c */
#include <math.h>
#include <stddef.h>

static float conv_at(const float *x, const float *w, int C, int H, int W, int i, int j)
{
	float acc = 0;
	for (int c = 0; c < C; c++)
		for (int a = 0; a < 3; a++)
			for (int e = 0; e < 3; e++)
				acc += w[(size_t)c * 9 + a * 3 + e] * x[((size_t)c * H + i + a) * W + j + e];
	return acc;
}

int kf_launch(const float *x, const float *w, const float *cb, const float *b, float *y, int N, int C, int H, int W,
	      int O, float scale)
{
	int PH = (H - 2) / 2, PW = (W - 2) / 2;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++)
			for (int i = 0; i < PH; i++)
				for (int j = 0; j < PW; j++) {
					float m = -INFINITY;
					for (int a = 0; a < 2; a++)
						for (int e = 0; e < 2; e++) {
							float z = conv_at(x + (size_t)n * C * H * W, w + (size_t)o * C * 9, C, H, W,
									  2 * i + a, 2 * j + e) + cb[o];
							m = fmaxf(m, tanhf(z) * scale + b[o]);
						}
					y[(((size_t)n * O + o) * PH + i) * PW + j] = m;
				}
	return 0;
}
