/* Example candidate for selective_scan (cpu backend): per batch entry, time outer and channels inner over a
 * [Dm][N] state array, the channels of each step split across OpenMP threads.
 * Submit with: kforge submit --task selective_scan examples/cpu/selective_scan.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *u, const kf_bf16 *delta, const float *A, const kf_bf16 *Bm, const kf_bf16 *Cm,
	      kf_bf16 *y, int B, int L, int Dm, int N)
{
	float *h = malloc(((size_t)Dm * N + 1) * sizeof *h);
	if (!h)
		return 1;
	for (int b = 0; b < B; b++) {
		for (size_t i = 0; i < (size_t)Dm * N; i++)
			h[i] = 0;
		for (int t = 0; t < L; t++) {
			size_t row = (size_t)b * L + t;
#pragma omp parallel for
			for (int d = 0; d < Dm; d++) {
				float dt = kf_bf16_to_float(delta[row * Dm + d]), x = kf_bf16_to_float(u[row * Dm + d]), acc = 0;
				for (int n = 0; n < N; n++) {
					float *hn = h + (size_t)d * N + n;
					*hn = expf(dt * A[(size_t)d * N + n]) * *hn + dt * kf_bf16_to_float(Bm[row * N + n]) * x;
					acc += kf_bf16_to_float(Cm[row * N + n]) * *hn;
				}
				y[row * Dm + d] = kf_float_to_bf16(acc);
			}
		}
	}
	free(h);
	return 0;
}
