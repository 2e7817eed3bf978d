/* fp64 oracle for rotary_embedding_bf16 (rotate-half form): for i < P,
 * out[t, h, i] = x[t, h, i] cos[t, i] - x[t, h, i + P] sin[t, i];
 * out[t, h, i + P] = x[t, h, i + P] cos[t, i] + x[t, h, i] sin[t, i]. */
#include <stddef.h>

int kf_oracle(const double *x, const double *cos_table, const double *sin_table, double *out, int T, int H, int P)
{
	for (int t = 0; t < T; t++)
		for (int h = 0; h < H; h++) {
			size_t row = ((size_t)t * H + h) * 2 * P;
			for (int i = 0; i < P; i++) {
				double c = cos_table[(size_t)t * P + i], s = sin_table[(size_t)t * P + i];
				out[row + i] = x[row + i] * c - x[row + P + i] * s;
				out[row + P + i] = x[row + P + i] * c + x[row + i] * s;
			}
		}
	return 0;
}
