/* Example candidate for conv3d_relu_avgpool (cpu backend): each pooled output sums the ReLU of its 8 convolutions,
 * computed directly. Submit with: kforge submit --task conv3d_relu_avgpool examples/cpu/conv3d_relu_avgpool.c */
#include <stddef.h>

int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int D, int H, int W, int O)
{
	int PD = D / 2, PH = H / 2, PW = W / 2;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++)
			for (int pd = 0; pd < PD; pd++)
				for (int ph = 0; ph < PH; ph++)
					for (int pw = 0; pw < PW; pw++) {
						float sum = 0;
						for (int q = 0; q < 8; q++) {
							int d = 2 * pd + q / 4, h = 2 * ph + q / 2 % 2, v = 2 * pw + q % 2;
							float acc = cb[o];
							for (int c = 0; c < C; c++)
								for (int a = 0; a < 3; a++)
									for (int b = 0; b < 3; b++)
										for (int e = 0; e < 3; e++) {
											int zd = d + a - 1, zh = h + b - 1, zw = v + e - 1;
											if (zd < 0 || zd >= D || zh < 0 || zh >= H || zw < 0 || zw >= W)
												continue;
											acc += w[((((size_t)o * C + c) * 3 + a) * 3 + b) * 3 + e] *
											       x[((((size_t)n * C + c) * D + zd) * H + zh) * W + zw];
										}
							sum += acc > 0 ? acc : 0;
						}
						y[((((size_t)n * O + o) * PD + pd) * PH + ph) * PW + pw] = sum / 8;
					}
	return 0;
}
