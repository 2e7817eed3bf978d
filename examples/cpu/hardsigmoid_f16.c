/* Example candidate for hardsigmoid_f16 (cpu backend): the clamp written as three branches (0 below -3, 1 above 3,
 * x / 6 + 1/2 between); fp32, one OpenMP loop. Submit with: kforge submit --task hardsigmoid_f16
 * examples/cpu/hardsigmoid_f16.c */
#include <math.h>

int kf_launch(const kf_f16 *x, kf_f16 *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = kf_f16_to_float(x[i]);
		y[i] = kf_float_to_f16((v <= -3.0f ? 0.0f : v >= 3.0f ? 1.0f : v * (1.0f / 6.0f) + 0.5f));
	}
	return 0;
}
