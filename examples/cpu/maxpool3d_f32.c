/* Example candidate for maxpool3d_f32 (cpu backend): taps outside the volume are skipped axis by axis (an outer tap
 * out of range skips its whole inner loops); (n, c) volumes across OpenMP threads.
 * Submit with: kforge submit --task maxpool3d_f32 examples/cpu/maxpool3d_f32.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *y, int N, int C, int D, int H, int W, int K, int S, int P, int DIL)
{
	int span = DIL * (K - 1) + 1;
	int OD = (D + 2 * P - span) / S + 1, OH = (H + 2 * P - span) / S + 1, OW = (W + 2 * P - span) / S + 1;
#pragma omp parallel for
	for (int r = 0; r < N * C; r++) {
		const float *xr = x + (size_t)r * D * H * W;
		float *yr = y + (size_t)r * OD * OH * OW;
		for (int i = 0; i < OD; i++)
			for (int j = 0; j < OH; j++)
				for (int l = 0; l < OW; l++) {
					float best = -INFINITY;
					for (int a = 0; a < K; a++) {
						int d = i * S - P + a * DIL;
						if (d < 0 || d >= D)
							continue;
						for (int b = 0; b < K; b++) {
							int h = j * S - P + b * DIL;
							if (h < 0 || h >= H)
								continue;
							for (int e = 0; e < K; e++) {
								int w = l * S - P + e * DIL;
								if (w >= 0 && w < W)
									best = fmaxf(best, xr[((size_t)d * H + h) * W + w]);
							}
						}
					}
					yr[((size_t)i * OH + j) * OW + l] = best;
				}
	}
	return 0;
}
