/* Example candidate for tanh_bf16 (cpu backend): 1 - 2 / (exp(2x) + 1), which saturates to +-1 instead of giving
 * inf / inf (the naive (e^2x - 1) / (e^2x + 1) is NaN at large x); fp32, one OpenMP loop. Submit with: kforge
 * submit --task tanh_bf16 examples/cpu/tanh_bf16.c */
#include <math.h>

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = kf_bf16_to_float(x[i]);
		y[i] = kf_float_to_bf16((1.0f - 2.0f / (expf(2.0f * v) + 1.0f)));
	}
	return 0;
}
