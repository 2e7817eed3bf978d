/* Example candidate for causal_attn_scores (cpu backend): per (head, query) row, an online pass for the max and the
 * rescaled sum of exponentials, then a second pass that recomputes each score and writes its probability; zeros
 * past the diagonal. Rows split across OpenMP threads.
 * Submit with: kforge submit --task causal_attn_scores examples/cpu/causal_attn_scores.c */
#include <math.h>
#include <stddef.h>

static float score(const kf_bf16 *q, const kf_bf16 *k, int D)
{
	float dot = 0;
	for (int d = 0; d < D; d++)
		dot += kf_bf16_to_float(q[d]) * kf_bf16_to_float(k[d]);
	return dot / sqrtf((float)D);
}

int kf_launch(const kf_bf16 *Q, const kf_bf16 *K, kf_bf16 *P, int BH, int L, int D)
{
#pragma omp parallel for schedule(dynamic, 8)
	for (long long row = 0; row < (long long)BH * L; row++) {
		int i = (int)(row % L);
		const kf_bf16 *q = Q + (size_t)row * D, *kh = K + (size_t)(row - i) * D;
		float max = -INFINITY, sum = 0;
		for (int j = 0; j <= i; j++) {
			float s = score(q, kh + (size_t)j * D, D);
			if (s > max) {
				sum = sum * expf(max - s) + 1;
				max = s;
			} else {
				sum += expf(s - max);
			}
		}
		for (int j = 0; j < L; j++)
			P[(size_t)row * L + j] = kf_float_to_bf16(j <= i ? expf(score(q, kh + (size_t)j * D, D) - max) / sum : 0.0f);
	}
	return 0;
}
