/* fp64 oracle for flash_attention_causal: O[b, h, i, :] = sum_{j <= i} softmax_j(Q[b, h, i, :] . K[b, g, j, :] / sqrt(D))
 * V[b, g, j, :], the softmax over j <= i only, with g = h / (H / HKV), the KV head of query head h. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

int kf_oracle(const double *Q, const double *K, const double *V, double *O, int B, int H, int HKV, int L, int D)
{
	double *s = malloc((size_t)L * sizeof *s);
	if (!s)
		return 1;
	for (int b = 0; b < B; b++)
		for (int h = 0; h < H; h++) {
			int g = h / (H / HKV);
			const double *k = K + ((size_t)b * HKV + g) * L * D, *v = V + ((size_t)b * HKV + g) * L * D;
			for (int i = 0; i < L; i++) {
				const double *q = Q + (((size_t)b * H + h) * L + i) * D;
				double *o = O + (((size_t)b * H + h) * L + i) * D;
				double max = -INFINITY, sum = 0;
				for (int j = 0; j <= i; j++) {
					s[j] = 0;
					for (int d = 0; d < D; d++)
						s[j] += q[d] * k[(size_t)j * D + d];
					s[j] /= sqrt((double)D);
					max = fmax(max, s[j]);
				}
				for (int j = 0; j <= i; j++)
					sum += s[j] = exp(s[j] - max);
				for (int d = 0; d < D; d++) {
					o[d] = 0;
					for (int j = 0; j <= i; j++)
						o[d] += s[j] / sum * v[(size_t)j * D + d];
				}
			}
		}
	free(s);
	return 0;
}
