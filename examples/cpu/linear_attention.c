/* Example candidate for linear_attention (cpu backend): the quadratic form, straight from the definition: per
 * position t, weights phi(q_t) . phi(k_s) for s <= t, their sum and the weighted sum of v_s; rows split across
 * OpenMP threads. O(L^2 D) per head: fine for the small shapes, slow at the bench shape.
 * Submit with: kforge submit --task linear_attention examples/cpu/linear_attention.c */
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
		float *buf = malloc((2 * (size_t)D + 1) * sizeof *buf);
		if (!buf) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(dynamic, 8)
		for (long long row = 0; row < (long long)BH * L; row++) {
			if (!buf)
				continue;
			int t = (int)(row % L);
			size_t head = (size_t)(row - t) * D;
			float *fq = buf, *acc = buf + D, den = 0;
			for (int d = 0; d < D; d++) {
				fq[d] = phi(kf_bf16_to_float(q[(size_t)row * D + d]));
				acc[d] = 0;
			}
			for (int s = 0; s <= t; s++) {
				float w = 0;
				for (int d = 0; d < D; d++)
					w += fq[d] * phi(kf_bf16_to_float(k[head + (size_t)s * D + d]));
				den += w;
				for (int d = 0; d < D; d++)
					acc[d] += w * kf_bf16_to_float(v[head + (size_t)s * D + d]);
			}
			for (int d = 0; d < D; d++)
				o[(size_t)row * D + d] = kf_float_to_bf16(acc[d] / den);
		}
		free(buf);
	}
	return rc;
}
