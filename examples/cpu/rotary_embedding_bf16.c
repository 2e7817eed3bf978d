/* Example candidate for rotary_embedding_bf16 (cpu backend): tokens split across OpenMP threads, each rotating every
 * head's pairs (i, i + P) with the token's cos and sin.
 * Submit with: kforge submit --task rotary_embedding_bf16 examples/cpu/rotary_embedding_bf16.c */
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const float *cos_table, const float *sin_table, kf_bf16 *out, int T, int H, int P)
{
#pragma omp parallel for
	for (int t = 0; t < T; t++)
		for (int h = 0; h < H; h++)
			for (int i = 0; i < P; i++) {
				size_t lo = ((size_t)t * H + h) * 2 * P + i, hi = lo + P;
				float c = cos_table[(size_t)t * P + i], s = sin_table[(size_t)t * P + i];
				float a = kf_bf16_to_float(x[lo]), b = kf_bf16_to_float(x[hi]);
				out[lo] = kf_float_to_bf16(a * c - b * s);
				out[hi] = kf_float_to_bf16(a * s + b * c);
			}
	return 0;
}
