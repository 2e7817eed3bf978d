/* Example candidate for gelu_tanh_bf16 (cpu backend): the formula as written, 0.5 x (1 + tanh(u)) with
 * u = sqrt(2/pi) (x + 0.044715 x^3), in fp32; tanhf saturates, so large |x| cannot overflow.
 * Submit with: kforge submit --task gelu_tanh_bf16 examples/cpu/gelu_tanh_bf16.c */
#include <math.h>

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int n)
{
#pragma omp parallel for
	for (int i = 0; i < n; i++) {
		float v = kf_bf16_to_float(x[i]);
		float u = 0.7978845608f * (v + 0.044715f * v * v * v);
		y[i] = kf_float_to_bf16(0.5f * v * (1.0f + tanhf(u)));
	}
	return 0;
}
