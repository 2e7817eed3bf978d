/* Example candidate for selu_f16 (cpu backend): the two constants folded: scale * alpha applied to expm1(x) on the
 * negative side; fp32, one OpenMP loop. Submit with: kforge submit --task selu_f16 examples/cpu/selu_f16.c */
#include <math.h>

int kf_launch(const kf_f16 *x, kf_f16 *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = kf_f16_to_float(x[i]);
		y[i] = kf_float_to_f16((v > 0.0f ? 1.0507009873554805f * v : 1.7580993408473766f * expm1f(v)));
	}
	return 0;
}
