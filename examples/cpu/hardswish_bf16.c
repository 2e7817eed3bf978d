/* Example candidate for hardswish_bf16 (cpu backend): three branches: 0 below -3, x above 3, x (x + 3) / 6 between;
 * fp32, one OpenMP loop. Submit with: kforge submit --task hardswish_bf16 examples/cpu/hardswish_bf16.c */
#include <math.h>

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = kf_bf16_to_float(x[i]);
		y[i] = kf_float_to_bf16((v <= -3.0f ? 0.0f : v >= 3.0f ? v : v * (v + 3.0f) * (1.0f / 6.0f)));
	}
	return 0;
}
