/* Example candidate for avgpool1d_f32 (cpu backend): each output sums the in-bounds part of its window (the clipped
 * range [max(start, 0), min(start + K, L))) and divides by K; (n, c) rows across OpenMP threads.
 * Submit with: kforge submit --task avgpool1d_f32 examples/cpu/avgpool1d_f32.c */
#include <stddef.h>

int kf_launch(const float *x, float *y, int N, int C, int L, int K, int S, int P)
{
	int OL = (L + 2 * P - K) / S + 1;
	float inv = 1.0f / (float)K;
#pragma omp parallel for
	for (int r = 0; r < N * C; r++) {
		const float *xr = x + (size_t)r * L;
		for (int i = 0; i < OL; i++) {
			int start = i * S - P, lo = start < 0 ? 0 : start, hi = start + K < L ? start + K : L;
			float sum = 0;
			for (int j = lo; j < hi; j++)
				sum += xr[j];
			y[(size_t)r * OL + i] = sum * inv;
		}
	}
	return 0;
}
