/* CPU reference for rotary_embedding_bf16 (rotate-half form): for i < P,
 * out[t, h, i] = x[t, h, i] cos[t, i] - x[t, h, i + P] sin[t, i]; out[t, h, i + P] = x[t, h, i + P] cos[t, i] +
 * x[t, h, i] sin[t, i]; fp32 arithmetic, rounded once to bf16. One (token, head) row per OpenMP iteration. */
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const float *cos_table, const float *sin_table, kf_bf16 *out, int T, int H, int P)
{
	long long rows = (long long)T * H;
#pragma omp parallel for schedule(static)
	for (long long row = 0; row < rows; row++) {
		const kf_bf16 *xr = x + (size_t)row * 2 * P;
		kf_bf16 *o = out + (size_t)row * 2 * P;
		const float *c = cos_table + (size_t)(row / H) * P, *s = sin_table + (size_t)(row / H) * P;
		for (int i = 0; i < P; i++) {
			float lo = kf_bf16_to_float(xr[i]), hi = kf_bf16_to_float(xr[P + i]);
			o[i] = kf_float_to_bf16(lo * c[i] - hi * s[i]);
			o[P + i] = kf_float_to_bf16(hi * c[i] + lo * s[i]);
		}
	}
	return 0;
}
