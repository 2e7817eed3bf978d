/* The CPU reference body shared by flash_attention and flash_attention_causal: per (batch, head,
 * query) row, fp32 scores q . k_j / sqrt(D) against the query head's KV head (h / (H / HKV)) —
 * only keys j <= i when CAUSAL is 1 — then the max, exp and a double sum, and the normalised
 * weights applied to V in an fp32 row, rounded once. Operands widened to fp32 once. The including
 * file defines CAUSAL. */
#ifndef CAUSAL
#error "define CAUSAL (0 or 1) before including cpu/flash_attention_rows.h"
#endif
#include "cpu/rows.h"

#define ROW_CHUNK 16

struct args {
	const float *q, *k, *v;
	kf_bf16 *O;
	int H, HKV, L, D;
};

static void row(long long row, float *s, const void *args)
{
	const struct args *p = args;
	int H = p->H, HKV = p->HKV, L = p->L, D = p->D;
	int i = (int)(row % L), h = (int)(row / L % H), b = (int)(row / ((long long)L * H));
	int keys = CAUSAL ? i + 1 : L;
	size_t kv = ((size_t)b * HKV + h / (H / HKV)) * L * D;
	const float *qi = p->q + (size_t)row * D, *kh = p->k + kv, *vh = p->v + kv;
	float *acc = s + L, max = scores_row(s, qi, kh, (size_t)D, keys, D, 1.0f / sqrtf((float)D));
	double sum = exp_row(s, keys, max);
	for (int d = 0; d < D; d++)
		acc[d] = 0;
	for (int j = 0; j < keys; j++)
#pragma omp simd
		for (int d = 0; d < D; d++)
			acc[d] += s[j] * vh[(size_t)j * D + d];
	float inv = (float)(1.0 / sum);
	for (int d = 0; d < D; d++)
		p->O[(size_t)row * D + d] = kf_float_to_bf16(acc[d] * inv);
}

int kf_launch(const kf_bf16 *Q, const kf_bf16 *K, const kf_bf16 *V, kf_bf16 *O, int B, int H, int HKV, int L, int D)
{
	size_t nq = (size_t)B * H * L * D, nkv = (size_t)B * HKV * L * D;
	float *q = malloc((nq + 2 * nkv + 1) * sizeof *q);
	if (!q)
		return 1;
	widen_parallel(q, Q, nq);
	widen_parallel(q + nq, K, nkv);
	widen_parallel(q + nq + nkv, V, nkv);
	struct args p = { q, q + nq, q + nq + nkv, O, H, HKV, L, D };
	int rc = for_each_row((long long)B * H * L, (size_t)L + D, ROW_CHUNK, row, &p);
	free(q);
	return rc;
}
