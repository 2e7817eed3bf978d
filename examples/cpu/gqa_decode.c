/* Example candidate for gqa_decode (cpu backend): per (sequence, query head), all scores first, then the softmax and
 * the weighted sum of values. Submit with: kforge submit --task gqa_decode examples/cpu/gqa_decode.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *q, const kf_bf16 *k, const kf_bf16 *v, kf_bf16 *out, int B, int H, int HKV, int L, int D,
	      float scale)
{
	int group = H / HKV, rc = 0;
#pragma omp parallel
	{
		float *s = malloc(sizeof *s * (size_t)L), *acc = malloc(sizeof *acc * (size_t)D);
		if (!s || !acc) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for collapse(2)
		for (int b = 0; b < B; b++)
			for (int h = 0; h < H; h++) {
				if (!s || !acc)
					continue;
				const kf_bf16 *qr = q + ((size_t)b * H + h) * D;
				size_t kv = ((size_t)b * HKV + h / group) * L * D;
				float mx = -INFINITY, sum = 0;
				for (int j = 0; j < L; j++) {
					float dot = 0;
					for (int d = 0; d < D; d++)
						dot += kf_bf16_to_float(qr[d]) * kf_bf16_to_float(k[kv + (size_t)j * D + d]);
					s[j] = dot * scale;
					mx = fmaxf(mx, s[j]);
				}
				for (int d = 0; d < D; d++)
					acc[d] = 0;
				for (int j = 0; j < L; j++) {
					float w = expf(s[j] - mx);
					sum += w;
					for (int d = 0; d < D; d++)
						acc[d] += w * kf_bf16_to_float(v[kv + (size_t)j * D + d]);
				}
				for (int d = 0; d < D; d++)
					out[((size_t)b * H + h) * D + d] = kf_float_to_bf16(acc[d] / sum);
			}
		free(s);
		free(acc);
	}
	return rc;
}
