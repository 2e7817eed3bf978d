/* Example candidate for moe_combine (cpu backend): plain loops. Submit with:
 * kforge submit --task moe_combine examples/cpu/moe_combine.c */
#include <stddef.h>

int kf_launch(const float *expert_out, const int32_t *idx, const float *w, float *y, int T, int E, int K, int D)
{
	(void)E;
	for (int t = 0; t < T; t++)
		for (int d = 0; d < D; d++) {
			float acc = 0;
			for (int j = 0; j < K; j++)
				acc += w[(size_t)t * K + j] * expert_out[((size_t)idx[(size_t)t * K + j] * T + t) * D + d];
			y[(size_t)t * D + d] = acc;
		}
	return 0;
}
