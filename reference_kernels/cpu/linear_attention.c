/* CPU reference for linear_attention, as the recurrence: per head, an fp32 state S (D x D) and normaliser z, updated
 * with phi(k_t)^T v_t and phi(k_t) at each step, then o_t = phi(q_t) S / (phi(q_t) . z). Heads split across OpenMP
 * threads. */
#include <math.h>
#include <stdlib.h>

static float phi(float x)
{
	return x > 0 ? x + 1 : expf(x);
}

int kf_launch(const kf_bf16 *q, const kf_bf16 *k, const kf_bf16 *v, kf_bf16 *o, int BH, int L, int D)
{
	int rc = 0;
#pragma omp parallel
	{
		float *S = malloc(((size_t)D * D + 4 * (size_t)D + 1) * sizeof *S);
		if (!S) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(dynamic, 1)
		for (int bh = 0; bh < BH; bh++) {
			if (!S)
				continue;
			float *z = S + (size_t)D * D, *fq = z + D, *fk = fq + D, *vt = fk + D;
			for (size_t i = 0; i < (size_t)D * D; i++)
				S[i] = 0;
			for (int d = 0; d < D; d++)
				z[d] = 0;
			for (int t = 0; t < L; t++) {
				size_t at = ((size_t)bh * L + t) * D;
				for (int d = 0; d < D; d++) {
					fq[d] = phi(kf_bf16_to_float(q[at + d]));
					fk[d] = phi(kf_bf16_to_float(k[at + d]));
					vt[d] = kf_bf16_to_float(v[at + d]);
				}
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
				for (int d = 0; d < D; d++) {
					const float *Sd = S + (size_t)d * D;
#pragma omp simd
					for (int e = 0; e < D; e++)
						vt[e] += fq[d] * Sd[e];
				}
				for (int e = 0; e < D; e++)
					o[at + e] = kf_float_to_bf16(vt[e] / den);
			}
		}
		free(S);
	}
	return rc;
}
