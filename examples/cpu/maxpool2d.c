/* Example candidate for maxpool2d (cpu backend): plain loops. Submit with:
 * kforge submit --task maxpool2d examples/cpu/maxpool2d.c */
#include <stddef.h>
#include <math.h>

int kf_launch(const float *x, float *y, int N, int C, int H, int W)
{
	int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
	for (int nc = 0; nc < N * C; nc++)
		for (int i = 0; i < OH; i++)
			for (int j = 0; j < OW; j++) {
				float m = -INFINITY;
				for (int a = 0; a < 3; a++)
					for (int b = 0; b < 3; b++) {
						int h = 2 * i - 1 + a, w = 2 * j - 1 + b;
						if (h >= 0 && h < H && w >= 0 && w < W && x[((size_t)nc * H + h) * W + w] > m)
							m = x[((size_t)nc * H + h) * W + w];
					}
				y[((size_t)nc * OH + i) * OW + j] = m;
			}
	return 0;
}
