/* Example candidate for paged_decode_attention (cpu backend): per (sequence, query head), one pass over the sequence's
 * tokens page by page with an online softmax (running max and sum, the output rescaled when the max grows).
 * Submit with: kforge submit --task paged_decode_attention examples/cpu/paged_decode_attention.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *q, const kf_bf16 *k_cache, const kf_bf16 *v_cache, const int32_t *page_table,
	      const int32_t *seq_lens, kf_bf16 *out, int B, int H, int HKV, int D, int P, int PS, int NP, float scale)
{
	(void)P;
	int group = H / HKV, rc = 0;
#pragma omp parallel
	{
		float *acc = malloc(sizeof *acc * (size_t)D), *qf = malloc(sizeof *qf * (size_t)D);
		if (!acc || !qf) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for collapse(2)
		for (int b = 0; b < B; b++)
			for (int h = 0; h < H; h++) {
				if (!acc || !qf)
					continue;
				int g = h / group, len = seq_lens[b];
				for (int d = 0; d < D; d++) {
					qf[d] = kf_bf16_to_float(q[((size_t)b * H + h) * D + d]);
					acc[d] = 0;
				}
				float mx = -INFINITY, sum = 0;
				for (int j = 0; j < len; j++) {
					size_t base = (((size_t)page_table[(size_t)b * NP + j / PS] * PS + j % PS) * HKV + g) * D;
					float s = 0;
					for (int d = 0; d < D; d++)
						s += qf[d] * kf_bf16_to_float(k_cache[base + d]);
					s *= scale;
					float nm = fmaxf(mx, s), corr = expf(mx - nm), w = expf(s - nm);
					sum = sum * corr + w;
					for (int d = 0; d < D; d++)
						acc[d] = acc[d] * corr + w * kf_bf16_to_float(v_cache[base + d]);
					mx = nm;
				}
				for (int d = 0; d < D; d++)
					out[((size_t)b * H + h) * D + d] = kf_float_to_bf16(acc[d] / sum);
			}
		free(acc);
		free(qf);
	}
	return rc;
}
