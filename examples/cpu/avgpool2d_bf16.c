/* Example candidate for avgpool2d_bf16 (cpu backend): each output clips its window to the image, sums the clipped
 * rectangle in fp32 and divides by the rectangle's area; planes across OpenMP threads.
 * Submit with: kforge submit --task avgpool2d_bf16 examples/cpu/avgpool2d_bf16.c */
#include <stddef.h>

static int clip(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int N, int C, int H, int W, int K, int S, int P)
{
	int OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
#pragma omp parallel for
	for (int r = 0; r < N * C; r++) {
		const kf_bf16 *xr = x + (size_t)r * H * W;
		for (int i = 0; i < OH; i++) {
			int h0 = clip(i * S - P, 0, H), h1 = clip(i * S - P + K, 0, H);
			for (int j = 0; j < OW; j++) {
				int w0 = clip(j * S - P, 0, W), w1 = clip(j * S - P + K, 0, W);
				float sum = 0;
				for (int h = h0; h < h1; h++)
					for (int w = w0; w < w1; w++)
						sum += kf_bf16_to_float(xr[(size_t)h * W + w]);
				y[((size_t)r * OH + i) * OW + j] = kf_float_to_bf16(sum / (float)((h1 - h0) * (w1 - w0)));
			}
		}
	}
	return 0;
}
