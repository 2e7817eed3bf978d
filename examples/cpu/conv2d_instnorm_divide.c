/* Example candidate for conv2d_instnorm_divide (cpu backend): each output plane convolved into y, then normalised in
 * place (mean, then variance about it) and divided. Submit with:
 * kforge submit --task conv2d_instnorm_divide examples/cpu/conv2d_instnorm_divide.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int H, int W, int O, float eps,
	      float divisor)
{
	int OH = H - 2, OW = W - 2;
	size_t plane = (size_t)OH * OW;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < O; o++) {
			float *yp = y + ((size_t)n * O + o) * plane;
			for (int i = 0; i < OH; i++)
				for (int j = 0; j < OW; j++) {
					float acc = cb[o];
					for (int c = 0; c < C; c++)
						for (int a = 0; a < 3; a++)
							for (int e = 0; e < 3; e++)
								acc += w[(((size_t)o * C + c) * 3 + a) * 3 + e] *
								       x[(((size_t)n * C + c) * H + i + a) * W + j + e];
					yp[(size_t)i * OW + j] = acc;
				}
			double sum = 0, sq = 0;
			for (size_t k = 0; k < plane; k++)
				sum += yp[k];
			float mean = (float)(sum / plane);
			for (size_t k = 0; k < plane; k++)
				sq += (double)(yp[k] - mean) * (yp[k] - mean);
			float rstd = 1.0f / sqrtf((float)(sq / plane) + eps);
			for (size_t k = 0; k < plane; k++)
				yp[k] = (yp[k] - mean) * rstd / divisor;
		}
	return 0;
}
