/* Example candidate for sigmoid_f32 (cpu backend): exp of -|x| only, so nothing overflows: e / (1 + e) for negative
 * x; fp32, one OpenMP loop. Submit with: kforge submit --task sigmoid_f32 examples/cpu/sigmoid_f32.c */
#include <math.h>

int kf_launch(const float *x, float *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = x[i];
		y[i] = (v >= 0.0f ? 1.0f / (1.0f + expf(-v)) : expf(v) / (1.0f + expf(v)));
	}
	return 0;
}
