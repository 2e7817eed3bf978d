/* Example candidate for softplus_f32 (cpu backend): max(x, 0) + log1p(exp(-|x|)), which never overflows: the naive
 * log(1 + exp(x)) is inf once exp(x) is; fp32, one OpenMP loop. Submit with: kforge submit --task softplus_f32
 * examples/cpu/softplus_f32.c */
#include <math.h>

int kf_launch(const float *x, float *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = x[i];
		y[i] = (fmaxf(v, 0.0f) + log1pf(expf(-fabsf(v))));
	}
	return 0;
}
