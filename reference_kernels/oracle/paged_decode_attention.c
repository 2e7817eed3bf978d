/* fp64 oracle for paged_decode_attention (no CPU reference: the judge wraps this one): each sequence's keys and values
 * gathered from its pages into contiguous [HKV, len, D] arrays, then the op library's GQA attention with one query. */
#include "oracle/ops.c"

int kf_oracle(const double *q, const double *k_cache, const double *v_cache, const double *page_table,
	      const double *seq_lens, double *out, int B, int H, int HKV, int D, int P, int PS, int NP, double scale)
{
	(void)P;
	int64_t cap = (int64_t)NP * PS;
	double *k = malloc(sizeof *k * (size_t)(HKV * cap * D)), *v = malloc(sizeof *v * (size_t)(HKV * cap * D));
	int rc = !k || !v;
	for (int64_t b = 0; !rc && b < B; b++) {
		int64_t len = (int64_t)seq_lens[b];
		for (int64_t j = 0; j < len; j++) {
			int64_t page = (int64_t)page_table[b * NP + j / PS], slot = j % PS;
			for (int64_t g = 0; g < HKV; g++)
				for (int64_t d = 0; d < D; d++) {
					int64_t src = ((page * PS + slot) * HKV + g) * D + d, dst = (g * len + j) * D + d;
					k[dst] = k_cache[src];
					v[dst] = v_cache[src];
				}
		}
		kf_op_attention(1, H, HKV, 1, len, D, D, q + b * H * D, k, v, scale, false, out + b * H * D);
	}
	free(k);
	free(v);
	return rc;
}
