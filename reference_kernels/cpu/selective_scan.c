/* CPU reference for selective_scan: per (batch, channel), the N-entry fp32 state stepped through time exactly as
 * the recurrence reads. */
#include <math.h>

#include "cpu/rows.h"

#define CHANNEL_CHUNK 8

struct args {
	const kf_bf16 *u, *delta, *Bm, *Cm;
	const float *A;
	kf_bf16 *y;
	int L, Dm, N;
};

static void channel(long long bd, float *h, const void *args)
{
	const struct args *p = args;
	int L = p->L, Dm = p->Dm, N = p->N, b = (int)(bd / Dm), d = (int)(bd % Dm);
	const float *a = p->A + (size_t)d * N;
	for (int n = 0; n < N; n++)
		h[n] = 0;
	for (int t = 0; t < L; t++) {
		size_t row = (size_t)b * L + t;
		float dt = kf_bf16_to_float(p->delta[row * Dm + d]);
		float du = dt * kf_bf16_to_float(p->u[row * Dm + d]), acc = 0;
		for (int n = 0; n < N; n++) {
			h[n] = expf(dt * a[n]) * h[n] + du * kf_bf16_to_float(p->Bm[row * N + n]);
			acc += kf_bf16_to_float(p->Cm[row * N + n]) * h[n];
		}
		p->y[row * Dm + d] = kf_float_to_bf16(acc);
	}
}

int kf_launch(const kf_bf16 *u, const kf_bf16 *delta, const float *A, const kf_bf16 *Bm, const kf_bf16 *Cm,
	      kf_bf16 *y, int B, int L, int Dm, int N)
{
	struct args p = { u, delta, Bm, Cm, A, y, L, Dm, N };
	return for_each_row((long long)B * Dm, (size_t)N, CHANNEL_CHUNK, channel, &p);
}
