/* Example candidate for silu_mul_fp8_quant (cpu backend): per element, silu(gate) * up times the scale's reciprocal,
 * encoded with the header's E4M3 conversion. Submit with:
 * kforge submit --task silu_mul_fp8_quant examples/cpu/silu_mul_fp8_quant.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const float *scale, kf_fp8_e4m3 *q, int M, int N)
{
	float inv = 1.0f / scale[0];
#pragma omp parallel for
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float g = kf_bf16_to_float(x[(size_t)m * 2 * N + n]), u = kf_bf16_to_float(x[(size_t)m * 2 * N + N + n]);
			q[(size_t)m * N + n] = kf_float_to_fp8_e4m3(g / (1.0f + expf(-g)) * u * inv);
		}
	return 0;
}
