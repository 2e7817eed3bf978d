/* Example candidate for conv2d_mish_mish (cpu backend): direct convolution, then mish twice, with softplus written
 * stably (log1p(exp(-|v|)) + max(v, 0)). Submit with: kforge submit --task conv2d_mish_mish examples/cpu/conv2d_mish_mish.c */
#include <math.h>
#include <stddef.h>

static float mish(float v)
{
	float sp = log1pf(expf(-fabsf(v))) + fmaxf(v, 0);
	return v * tanhf(sp);
}

int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int H, int W, int O)
{
	int OH = H - 2, OW = W - 2;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++)
			for (int i = 0; i < OH; i++)
				for (int j = 0; j < OW; j++) {
					float acc = cb[o];
					for (int c = 0; c < C; c++)
						for (int a = 0; a < 3; a++)
							for (int e = 0; e < 3; e++)
								acc += w[(((size_t)o * C + c) * 3 + a) * 3 + e] *
								       x[(((size_t)n * C + c) * H + i + a) * W + j + e];
					y[(((size_t)n * O + o) * OH + i) * OW + j] = mish(mish(acc));
				}
	return 0;
}
