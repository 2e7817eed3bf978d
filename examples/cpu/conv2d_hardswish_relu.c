/* Example candidate for conv2d_hardswish_relu (cpu backend): direct convolution; relu(hardswish(z)) is 0 for z <= 0,
 * so only the positive branch is evaluated. Submit with:
 * kforge submit --task conv2d_hardswish_relu examples/cpu/conv2d_hardswish_relu.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int H, int W, int O)
{
	int OH = H - 2, OW = W - 2;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++)
			for (int i = 0; i < OH; i++)
				for (int j = 0; j < OW; j++) {
					float z = cb[o];
					for (int c = 0; c < C; c++)
						for (int a = 0; a < 3; a++)
							for (int e = 0; e < 3; e++)
								z += w[(((size_t)o * C + c) * 3 + a) * 3 + e] *
								     x[(((size_t)n * C + c) * H + i + a) * W + j + e];
					y[(((size_t)n * O + o) * OH + i) * OW + j] = z > 0 ? z * fminf(z + 3.0f, 6.0f) / 6.0f : 0.0f;
				}
	return 0;
}
