/* Example candidate for conv_transpose2d (cpu backend): plain loops. Submit with:
 * kforge submit --task conv_transpose2d examples/cpu/conv_transpose2d.c */
#include <stddef.h>

int kf_launch(const float *x, const float *w, float *y, int N, int C, int H, int W, int O)
{
	int OH = 2 * H, OW = 2 * W;
	/* gather form: output (i, j) receives input (p, q) through kernel tap (i + 1 - 2p, j + 1 - 2q) */
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++)
			for (int i = 0; i < OH; i++)
				for (int j = 0; j < OW; j++) {
					float sum = 0;
					for (int c = 0; c < C; c++)
						for (int a = (i + 1) % 2; a < 4; a += 2)
							for (int b = (j + 1) % 2; b < 4; b += 2) {
								int p = (i + 1 - a) / 2, q = (j + 1 - b) / 2;
								if (p < 0 || p >= H || q < 0 || q >= W)
									continue;
								sum += x[(((size_t)n * C + c) * H + p) * W + q] * w[(((size_t)c * O + o) * 4 + a) * 4 + b];
							}
					y[(((size_t)n * O + o) * OH + i) * OW + j] = sum;
				}
	return 0;
}
