/* Example candidate for leaky_relu_f16 (cpu backend): max(x, slope x), the same for 0 <= slope <= 1; fp32, one
 * OpenMP loop. Submit with: kforge submit --task leaky_relu_f16 examples/cpu/leaky_relu_f16.c */
#include <math.h>

int kf_launch(const kf_f16 *x, kf_f16 *y, int N, float slope)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = kf_f16_to_float(x[i]);
		y[i] = kf_float_to_f16((fmaxf(v, slope * v)));
	}
	return 0;
}
