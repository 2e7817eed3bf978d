/* Example candidate for conv2d_depthwise_f32 (cpu backend): each (n, c) plane is convolved with its own K x K filter,
 * output row by output row, taps outside the image skipped; planes across OpenMP threads.
 * Submit with: kforge submit --task conv2d_depthwise_f32 examples/cpu/conv2d_depthwise_f32.c */
#include <stddef.h>

int kf_launch(const float *x, const float *w, float *y, int N, int C, int H, int W, int K, int S, int P)
{
	int OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
#pragma omp parallel for
	for (int r = 0; r < N * C; r++) {
		const float *xr = x + (size_t)r * H * W, *wr = w + (size_t)(r % C) * K * K;
		float *yr = y + (size_t)r * OH * OW;
		for (int i = 0; i < OH; i++)
			for (int j = 0; j < OW; j++) {
				float acc = 0;
				for (int a = 0; a < K; a++) {
					int h = i * S - P + a;
					if (h < 0 || h >= H)
						continue;
					for (int b = 0; b < K; b++) {
						int v = j * S - P + b;
						if (v >= 0 && v < W)
							acc += wr[a * K + b] * xr[(size_t)h * W + v];
					}
				}
				yr[(size_t)i * OW + j] = acc;
			}
	}
	return 0;
}
