/* CPU reference for gelu_tanh_bf16: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), computed in fp32 as the
 * identical x / (1 + exp(-2u)) (expf is several times cheaper than tanhf here), rounded once to bf16. For u << 0 the
 * exponential is inf and the result a signed zero; for u >> 0 it is 0 and the result x: nothing becomes NaN. */
#include <math.h>

#define SQRT_2_OVER_PI 0.7978845608028654f
#define GELU_CUBIC 0.044715f

int kf_launch(const kf_bf16 *x, kf_bf16 *y, int n)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < n; i++) {
		float v = kf_bf16_to_float(x[i]);
		float u = SQRT_2_OVER_PI * (v + GELU_CUBIC * v * v * v);
		y[i] = kf_float_to_bf16(v / (1.0f + expf(-2.0f * u)));
	}
	return 0;
}
