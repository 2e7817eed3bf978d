/* CPU reference for selective_scan: per (batch, channel), the N-entry fp32 state stepped through time exactly as
 * the recurrence reads; channels split across OpenMP threads. */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *u, const kf_bf16 *delta, const float *A, const kf_bf16 *Bm, const kf_bf16 *Cm,
	      kf_bf16 *y, int B, int L, int Dm, int N)
{
	int rc = 0;
#pragma omp parallel
	{
		float *h = malloc(((size_t)N + 1) * sizeof *h);
		if (!h) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(static)
		for (long long bd = 0; bd < (long long)B * Dm; bd++) {
			if (!h)
				continue;
			int b = (int)(bd / Dm), d = (int)(bd % Dm);
			const float *a = A + (size_t)d * N;
			for (int n = 0; n < N; n++)
				h[n] = 0;
			for (int t = 0; t < L; t++) {
				size_t row = (size_t)b * L + t;
				float dt = kf_bf16_to_float(delta[row * Dm + d]);
				float du = dt * kf_bf16_to_float(u[row * Dm + d]), acc = 0;
				for (int n = 0; n < N; n++) {
					h[n] = expf(dt * a[n]) * h[n] + du * kf_bf16_to_float(Bm[row * N + n]);
					acc += kf_bf16_to_float(Cm[row * N + n]) * h[n];
				}
				y[row * Dm + d] = kf_float_to_bf16(acc);
			}
		}
		free(h);
	}
	return rc;
}
