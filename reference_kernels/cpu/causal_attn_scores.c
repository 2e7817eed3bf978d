/* CPU reference for causal_attn_scores: per (head, query) row, fp32 scores q . k_j / sqrt(D) for j <= i from rows
 * widened once per head, then the max, exp and a double sum, normalised and rounded once; zeros for j > i.
 * Rows split across OpenMP threads. */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *Q, const kf_bf16 *K, kf_bf16 *P, int BH, int L, int D)
{
	size_t n = (size_t)BH * L * D;
	float *q = malloc((2 * n + 1) * sizeof *q);
	if (!q)
		return 1;
	float *k = q + n;
	int rc = 0;
	float scale = 1.0f / sqrtf((float)D);
#pragma omp parallel
	{
#pragma omp for schedule(static)
		for (size_t i = 0; i < n; i++) {
			q[i] = kf_bf16_to_float(Q[i]);
			k[i] = kf_bf16_to_float(K[i]);
		}
		float *s = malloc(((size_t)L + 1) * sizeof *s);
		if (!s) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(dynamic, 16)
		for (long long row = 0; row < (long long)BH * L; row++) {
			if (!s)
				continue;
			int i = (int)(row % L);
			const float *qi = q + (size_t)row * D, *kh = k + (size_t)(row - i) * D;
			kf_bf16 *p = P + (size_t)row * L;
			float max = -INFINITY;
			for (int j = 0; j <= i; j++) {
				float dot = 0;
#pragma omp simd reduction(+ : dot)
				for (int d = 0; d < D; d++)
					dot += qi[d] * kh[(size_t)j * D + d];
				s[j] = dot * scale;
				max = fmaxf(max, s[j]);
			}
			double sum = 0;
			for (int j = 0; j <= i; j++)
				sum += s[j] = expf(s[j] - max);
			float inv = (float)(1.0 / sum);
			for (int j = 0; j <= i; j++)
				p[j] = kf_float_to_bf16(s[j] * inv);
			for (int j = i + 1; j < L; j++)
				p[j] = 0;
		}
		free(s);
	}
	free(q);
	return rc;
}
