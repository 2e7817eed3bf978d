/* Example candidate for flash_attention (cpu backend): per (batch, head, query) row, one online-softmax pass over the
 * keys (running max, rescaled sum and output row), as a flash-attention kernel does per tile; rows split across
 * OpenMP threads.
 * Submit with: kforge submit --task flash_attention examples/cpu/flash_attention.c */
#include <math.h>
#include <stdlib.h>

#define CAUSAL 0

int kf_launch(const kf_bf16 *Q, const kf_bf16 *K, const kf_bf16 *V, kf_bf16 *O, int B, int H, int HKV, int L, int D)
{
	int rc = 0;
#pragma omp parallel
	{
		float *acc = malloc(((size_t)D + 1) * sizeof *acc);
		if (!acc) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(dynamic, 8)
		for (long long row = 0; row < (long long)B * H * L; row++) {
			if (!acc)
				continue;
			int i = (int)(row % L), h = (int)(row / L % H), b = (int)(row / ((long long)L * H));
			size_t kv = ((size_t)b * HKV + h / (H / HKV)) * L * D;
			const kf_bf16 *q = Q + (size_t)row * D;
			float max = -INFINITY, sum = 0;
			for (int d = 0; d < D; d++)
				acc[d] = 0;
			for (int j = 0; j < (CAUSAL ? i + 1 : L); j++) {
				float s = 0;
				for (int d = 0; d < D; d++)
					s += kf_bf16_to_float(q[d]) * kf_bf16_to_float(K[kv + (size_t)j * D + d]);
				s /= sqrtf((float)D);
				float m = fmaxf(max, s), alpha = expf(max - m), p = expf(s - m);
				for (int d = 0; d < D; d++)
					acc[d] = acc[d] * alpha + p * kf_bf16_to_float(V[kv + (size_t)j * D + d]);
				sum = sum * alpha + p;
				max = m;
			}
			for (int d = 0; d < D; d++)
				O[(size_t)row * D + d] = kf_float_to_bf16(acc[d] / sum);
		}
		free(acc);
	}
	return rc;
}
