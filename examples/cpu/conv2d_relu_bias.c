/* Example candidate for conv2d_relu_bias (cpu backend): direct convolution, output row by output row, the ReLU and
 * the bias applied as each value is finished. Submit with:
 * kforge submit --task conv2d_relu_bias examples/cpu/conv2d_relu_bias.c */
#include <stddef.h>

int kf_launch(const float *x, const float *w, const float *cb, const float *b, float *y, int N, int C, int H, int W,
	      int O)
{
	int OH = H - 2, OW = W - 2;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++)
			for (int i = 0; i < OH; i++)
				for (int j = 0; j < OW; j++) {
					float acc = cb[o];
					for (int c = 0; c < C; c++) {
						const float *xp = x + (((size_t)n * C + c) * H + i) * W + j;
						const float *wp = w + ((size_t)o * C + c) * 9;
						for (int a = 0; a < 3; a++)
							for (int e = 0; e < 3; e++)
								acc += wp[a * 3 + e] * xp[(size_t)a * W + e];
					}
					y[(((size_t)n * O + o) * OH + i) * OW + j] = (acc > 0 ? acc : 0) + b[o];
				}
	return 0;
}
