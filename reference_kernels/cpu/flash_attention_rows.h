/* The CPU reference body shared by flash_attention and flash_attention_causal: per (batch, head,
 * query) row, fp32 scores q . k_j / sqrt(D) against the query head's KV head (h / (H / HKV)) —
 * only keys j <= i when CAUSAL is 1 — then the max, exp and a double sum, and the normalised
 * weights applied to V in an fp32 row, rounded once. The including file defines CAUSAL. */
#ifndef CAUSAL
#error "define CAUSAL (0 or 1) before including cpu/flash_attention_rows.h"
#endif

int kf_launch(const kf_bf16 *Q, const kf_bf16 *K, const kf_bf16 *V, kf_bf16 *O, int B, int H, int HKV, int L, int D)
{
	size_t nq = (size_t)B * H * L * D, nkv = (size_t)B * HKV * L * D;
	float *q = malloc((nq + 2 * nkv + 1) * sizeof *q);
	if (!q)
		return 1;
	float *k = q + nq, *v = k + nkv;
	int rc = 0, group = H / HKV;
	float scale = 1.0f / sqrtf((float)D);
#pragma omp parallel
	{
#pragma omp for schedule(static)
		for (size_t i = 0; i < nq; i++)
			q[i] = kf_bf16_to_float(Q[i]);
#pragma omp for schedule(static)
		for (size_t i = 0; i < nkv; i++) {
			k[i] = kf_bf16_to_float(K[i]);
			v[i] = kf_bf16_to_float(V[i]);
		}
		float *s = malloc(((size_t)L + (size_t)D + 1) * sizeof *s);
		if (!s) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(dynamic, 16)
		for (long long row = 0; row < (long long)B * H * L; row++) {
			if (!s)
				continue;
			int i = (int)(row % L), h = (int)(row / L % H), b = (int)(row / ((long long)L * H));
			int keys = CAUSAL ? i + 1 : L;
			const float *qi = q + (size_t)row * D;
			const float *kh = k + ((size_t)b * HKV + h / group) * L * D, *vh = v + ((size_t)b * HKV + h / group) * L * D;
			float *acc = s + L, max = -INFINITY;
			for (int j = 0; j < keys; j++) {
				float dot = 0;
#pragma omp simd reduction(+ : dot)
				for (int d = 0; d < D; d++)
					dot += qi[d] * kh[(size_t)j * D + d];
				s[j] = dot * scale;
				max = fmaxf(max, s[j]);
			}
			double sum = 0;
			for (int j = 0; j < keys; j++)
				sum += s[j] = expf(s[j] - max);
			for (int d = 0; d < D; d++)
				acc[d] = 0;
			for (int j = 0; j < keys; j++)
#pragma omp simd
				for (int d = 0; d < D; d++)
					acc[d] += s[j] * vh[(size_t)j * D + d];
			float inv = (float)(1.0 / sum);
			for (int d = 0; d < D; d++)
				O[(size_t)row * D + d] = kf_float_to_bf16(acc[d] * inv);
		}
		free(s);
	}
	free(q);
	return rc;
}
