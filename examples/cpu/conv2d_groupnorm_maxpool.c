/* Example candidate for conv2d_groupnorm_maxpool (cpu backend): per (sample, group), the group's conv output into a
 * scratch plane stack, its mean and variance in two passes, then the pooled, normalised values. Submit with:
 * kforge submit --task conv2d_groupnorm_maxpool examples/cpu/conv2d_groupnorm_maxpool.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const float *x, const float *w, const float *cb, const float *gamma, const float *beta, float *y, int N,
	      int C, int H, int W, int O, int G, float eps)
{
	int cpg = O / G, PH = H / 2, PW = W / 2, rc = 0;
	size_t plane = (size_t)H * W;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int g = 0; g < G; g++) {
			float *z = malloc(sizeof *z * cpg * plane);
			if (!z) {
#pragma omp atomic write
				rc = 1;
				continue;
			}
			for (int oc = 0; oc < cpg; oc++) {
				int o = g * cpg + oc;
				for (int i = 0; i < H; i++)
					for (int j = 0; j < W; j++) {
						float acc = cb[o];
						for (int c = 0; c < C; c++)
							for (int a = -1; a <= 1; a++)
								for (int e = -1; e <= 1; e++) {
									int r = i + a, s = j + e;
									if (r >= 0 && r < H && s >= 0 && s < W)
										acc += w[(((size_t)o * C + c) * 3 + a + 1) * 3 + e + 1] *
										       x[(((size_t)n * C + c) * H + r) * W + s];
								}
						z[oc * plane + (size_t)i * W + j] = acc;
					}
			}
			size_t len = cpg * plane;
			double sum = 0, sq = 0;
			for (size_t k = 0; k < len; k++)
				sum += z[k];
			float mean = (float)(sum / len);
			for (size_t k = 0; k < len; k++)
				sq += (double)(z[k] - mean) * (z[k] - mean);
			float rstd = 1.0f / sqrtf((float)(sq / len) + eps);
			for (int oc = 0; oc < cpg; oc++) {
				int o = g * cpg + oc;
				for (int i = 0; i < PH; i++)
					for (int j = 0; j < PW; j++) {
						float m = -INFINITY;
						for (int a = 0; a < 2; a++)
							for (int e = 0; e < 2; e++) {
								float v = (z[oc * plane + (size_t)(2 * i + a) * W + 2 * j + e] - mean) * rstd;
								m = fmaxf(m, v * gamma[o] + beta[o]);
							}
						y[(((size_t)n * O + o) * PH + i) * PW + j] = m;
					}
			}
			free(z);
		}
	return rc;
}
