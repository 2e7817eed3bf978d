/* Example candidate for quantized_linear_u8 (cpu backend): plain loops. Submit with:
 * kforge submit --task quantized_linear_u8 examples/cpu/quantized_linear_u8.c */
#include <stddef.h>

int kf_launch(const uint8_t *x, const int8_t *w, float *y, int M, int N, int K, int zp, float scale)
{
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			int32_t acc = 0;
			for (int k = 0; k < K; k++)
				acc += ((int32_t)x[(size_t)m * K + k] - zp) * w[(size_t)n * K + k];
			y[(size_t)m * N + n] = scale * (float)acc;
		}
	return 0;
}
