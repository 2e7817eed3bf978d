/* Example candidate for cnn_block (cpu backend): each BatchNorm folded into a per-channel scale and shift, the first
 * stage stored whole, the second computed per pooled window. Submit with:
 * kforge submit --task cnn_block examples/cpu/cnn_block.c */
#include <math.h>
#include <stdlib.h>

static float conv3x3_at(const float *in, const float *w, int C, int H, int W, int i, int j)
{
	float acc = 0;
	for (int c = 0; c < C; c++)
		for (int a = -1; a <= 1; a++)
			for (int e = -1; e <= 1; e++) {
				int r = i + a, s = j + e;
				if (r >= 0 && r < H && s >= 0 && s < W)
					acc += w[(size_t)c * 9 + (a + 1) * 3 + e + 1] * in[((size_t)c * H + r) * W + s];
			}
	return acc;
}

int kf_launch(const float *x, const float *w1, const float *m1, const float *v1, const float *g1, const float *b1,
	      const float *w2, const float *m2, const float *v2, const float *g2, const float *b2, float *y, int N, int C,
	      int H, int W, int C1, int C2, float eps)
{
	size_t plane = (size_t)H * W;
	float *z = malloc(sizeof *z * (size_t)N * C1 * plane);
	if (!z)
		return 1;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < C1; o++) {
			float a = g1[o] / sqrtf(v1[o] + eps), sh = b1[o] - m1[o] * a;
			for (int i = 0; i < H; i++)
				for (int j = 0; j < W; j++) {
					float v = conv3x3_at(x + (size_t)n * C * plane, w1 + (size_t)o * C * 9, C, H, W, i, j) * a + sh;
					z[((size_t)n * C1 + o) * plane + (size_t)i * W + j] = v > 0 ? v : 0;
				}
		}
	int PH = H / 2, PW = W / 2;
#pragma omp parallel for collapse(2)
	for (int n = 0; n < N; n++)
		for (int o = 0; o < C2; o++) {
			float a = g2[o] / sqrtf(v2[o] + eps), sh = b2[o] - m2[o] * a;
			for (int i = 0; i < PH; i++)
				for (int j = 0; j < PW; j++) {
					float m = 0; /* after the ReLU every value is >= 0 */
					for (int q = 0; q < 4; q++) {
						float v = conv3x3_at(z + (size_t)n * C1 * plane, w2 + (size_t)o * C1 * 9, C1, H, W,
								     2 * i + q / 2, 2 * j + q % 2) * a + sh;
						m = fmaxf(m, v);
					}
					y[(((size_t)n * C2 + o) * PH + i) * PW + j] = m;
				}
		}
	free(z);
	return 0;
}
