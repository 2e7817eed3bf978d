/* CPU reference for causal_attn_scores: per (head, query) row, fp32 scores q . k_j / sqrt(D) for j <= i from rows
 * widened once, then the max, exp and a double sum, normalised and rounded once; zeros for j > i. */
#include "cpu/rows.h"

#define ROW_CHUNK 16

struct args {
	const float *q, *k;
	kf_bf16 *P;
	int L, D;
};

static void row(long long row, float *s, const void *args)
{
	const struct args *p = args;
	int L = p->L, D = p->D, i = (int)(row % L);
	const float *qi = p->q + (size_t)row * D, *kh = p->k + (size_t)(row - i) * D;
	kf_bf16 *out = p->P + (size_t)row * L;
	float max = scores_row(s, qi, kh, (size_t)D, i + 1, D, 1.0f / sqrtf((float)D));
	double sum = exp_row(s, i + 1, max);
	float inv = (float)(1.0 / sum);
	for (int j = 0; j <= i; j++)
		out[j] = kf_float_to_bf16(s[j] * inv);
	for (int j = i + 1; j < L; j++)
		out[j] = 0;
}

int kf_launch(const kf_bf16 *Q, const kf_bf16 *K, kf_bf16 *P, int BH, int L, int D)
{
	size_t n = (size_t)BH * L * D;
	float *q = malloc((2 * n + 1) * sizeof *q);
	if (!q)
		return 1;
	widen_parallel(q, Q, n);
	widen_parallel(q + n, K, n);
	struct args p = { q, q + n, P, L, D };
	int rc = for_each_row((long long)BH * L, (size_t)L, ROW_CHUNK, row, &p);
	free(q);
	return rc;
}
