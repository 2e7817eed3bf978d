/* Example candidate for conv3d_5d (cpu backend): plain loops. Submit with:
 * kforge submit --task conv3d_5d examples/cpu/conv3d_5d.c */
#include <stddef.h>

int kf_launch(const float *x, const float *wt, float *y, int N, int C, int D, int H, int W, int O)
{
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++)
			for (int d = 0; d < D; d++)
				for (int h = 0; h < H; h++)
					for (int w = 0; w < W; w++) {
						float sum = 0;
						for (int c = 0; c < C; c++)
							for (int a = 0; a < 3; a++)
								for (int b = 0; b < 3; b++)
									for (int e = 0; e < 3; e++) {
										int di = d - 1 + a, hi = h - 1 + b, wi = w - 1 + e;
										if (di < 0 || di >= D || hi < 0 || hi >= H || wi < 0 || wi >= W)
											continue;
										sum += wt[(((size_t)o * C + c) * 3 + a) * 9 + b * 3 + e] *
										       x[((((size_t)n * C + c) * D + di) * H + hi) * W + wi];
									}
						y[((((size_t)n * O + o) * D + d) * H + h) * W + w] = sum;
					}
	return 0;
}
