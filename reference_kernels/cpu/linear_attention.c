/* CPU reference for linear_attention, as the recurrence: per head, an fp32 state S (D x D) and normaliser z, updated
 * with phi(k_t)^T v_t and phi(k_t) at each step, then o_t = phi(q_t) S / (phi(q_t) . z). */
#include <math.h>

#include "cpu/rows.h"

/* a head is a whole sequence: hand them out one at a time */
#define HEAD_CHUNK 1

struct args {
	const kf_bf16 *q, *k, *v;
	kf_bf16 *o;
	int L, D;
};

static float phi(float x)
{
	return x > 0 ? x + 1 : expf(x);
}

static void head(long long bh, float *S, const void *args)
{
	const struct args *p = args;
	int L = p->L, D = p->D;
	float *z = S + (size_t)D * D, *fq = z + D, *fk = fq + D, *vt = fk + D;
	for (size_t i = 0; i < (size_t)D * D; i++)
		S[i] = 0;
	for (int d = 0; d < D; d++)
		z[d] = 0;
	for (int t = 0; t < L; t++) {
		size_t at = ((size_t)bh * L + t) * D;
		for (int d = 0; d < D; d++) {
			fq[d] = phi(kf_bf16_to_float(p->q[at + d]));
			fk[d] = phi(kf_bf16_to_float(p->k[at + d]));
		}
		widen_row(vt, p->v + at, (size_t)D);
		float den = 0;
		for (int d = 0; d < D; d++) {
			z[d] += fk[d];
			den += fq[d] * z[d];
			float *Sd = S + (size_t)d * D;
#pragma omp simd
			for (int e = 0; e < D; e++)
				Sd[e] += fk[d] * vt[e];
		}
		for (int e = 0; e < D; e++)
			vt[e] = 0;
		axpy_rows(vt, fq, 1.0f, S, D, D, (size_t)D);
		for (int e = 0; e < D; e++)
			p->o[at + e] = kf_float_to_bf16(vt[e] / den);
	}
}

int kf_launch(const kf_bf16 *q, const kf_bf16 *k, const kf_bf16 *v, kf_bf16 *o, int BH, int L, int D)
{
	struct args p = { q, k, v, o, L, D };
	return for_each_row(BH, (size_t)D * D + 4 * (size_t)D, HEAD_CHUNK, head, &p);
}
