/* Example candidate for avgpool3d_f32 (cpu backend): each output sums its window clipped to the volume and divides
 * by K^3 (count_include_pad); (n, c) volumes across OpenMP threads.
 * Submit with: kforge submit --task avgpool3d_f32 examples/cpu/avgpool3d_f32.c */
#include <stddef.h>

static int clip(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int kf_launch(const float *x, float *y, int N, int C, int D, int H, int W, int K, int S, int P)
{
	int OD = (D + 2 * P - K) / S + 1, OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
	float inv = 1.0f / (float)(K * K * K);
#pragma omp parallel for
	for (int r = 0; r < N * C; r++) {
		const float *xr = x + (size_t)r * D * H * W;
		float *yr = y + (size_t)r * OD * OH * OW;
		for (int i = 0; i < OD; i++)
			for (int j = 0; j < OH; j++)
				for (int l = 0; l < OW; l++) {
					int d0 = clip(i * S - P, 0, D), d1 = clip(i * S - P + K, 0, D);
					int h0 = clip(j * S - P, 0, H), h1 = clip(j * S - P + K, 0, H);
					int w0 = clip(l * S - P, 0, W), w1 = clip(l * S - P + K, 0, W);
					float sum = 0;
					for (int d = d0; d < d1; d++)
						for (int h = h0; h < h1; h++)
							for (int w = w0; w < w1; w++)
								sum += xr[((size_t)d * H + h) * W + w];
					yr[((size_t)i * OH + j) * OW + l] = sum * inv;
				}
	}
	return 0;
}
