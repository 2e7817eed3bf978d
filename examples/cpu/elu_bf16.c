/* Example candidate for elu_bf16 (cpu backend): expm1f for the negative side (exp(x) - 1 loses the small values
 * near 0 to cancellation); fp32, one OpenMP loop. Submit with: kforge submit --task elu_bf16
 * examples/cpu/elu_bf16.c */
#include <math.h>

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int N, float alpha)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = kf_bf16_to_float(x[i]);
		y[i] = kf_float_to_bf16((v > 0.0f ? v : alpha * expm1f(v)));
	}
	return 0;
}
