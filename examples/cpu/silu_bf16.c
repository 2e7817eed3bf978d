/* Example candidate for silu_bf16 (cpu backend): x * sigmoid(x) written as 0.5 x (1 + tanh(x / 2)), which never
 * overflows. Submit with: kforge submit --task silu_bf16 examples/cpu/silu_bf16.c */
#include <math.h>

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int n)
{
#pragma omp parallel for
	for (int i = 0; i < n; i++) {
		float v = kf_bf16_to_float(x[i]);
		y[i] = kf_float_to_bf16(0.5f * v * (1.0f + tanhf(0.5f * v)));
	}
	return 0;
}
