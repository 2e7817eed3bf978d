/* CPU reference for long_conv, computed directly: per (batch, channel) an fp32 output row, filled tap by tap with
 * axpys y[s..] += k[s] * x[..L-s] (vectorisable), rounded once. */
#include "cpu/rows.h"

/* a row costs O(L^2): hand them out one at a time */
#define ROW_CHUNK 1

struct args {
	const kf_bf16 *x;
	const float *k;
	kf_bf16 *y;
	int C, L;
};

static void row(long long bc, float *acc, const void *args)
{
	const struct args *p = args;
	int L = p->L;
	const float *kc = p->k + (size_t)(bc % p->C) * L;
	float *xr = acc + L;
	widen_row(xr, p->x + (size_t)bc * L, (size_t)L);
	for (int t = 0; t < L; t++)
		acc[t] = 0;
	for (int s = 0; s < L; s++) {
		float ks = kc[s];
		float *dst = acc + s;
#pragma omp simd
		for (int t = 0; t < L - s; t++)
			dst[t] += ks * xr[t];
	}
	for (int t = 0; t < L; t++)
		p->y[(size_t)bc * L + t] = kf_float_to_bf16(acc[t]);
}

int kf_launch(const kf_bf16 *x, const float *k, kf_bf16 *y, int B, int C, int L)
{
	struct args p = { x, k, y, C, L };
	return for_each_row((long long)B * C, 2 * (size_t)L, ROW_CHUNK, row, &p);
}
