/* Example candidate for mish_f16 (cpu backend): tanh(log(1 + e)) = ((1 + e)^2 - 1) / ((1 + e)^2 + 1) with e =
 * exp(x), so one exp; above x = 20 it is x itself (fp32 (1 + e)^2 overflows there); fp32, one OpenMP loop. Submit
 * with: kforge submit --task mish_f16 examples/cpu/mish_f16.c */
#include <math.h>

int kf_launch(const kf_f16 *x, kf_f16 *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = kf_f16_to_float(x[i]);
		y[i] = kf_float_to_f16((v > 20.0f ? v : v * (1.0f - 2.0f / ((1.0f + expf(v)) * (1.0f + expf(v)) + 1.0f))));
	}
	return 0;
}
