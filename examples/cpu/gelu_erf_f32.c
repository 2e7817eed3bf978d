/* Example candidate for gelu_erf_f32 (cpu backend): the erfc form 0.5 x erfc(-x / sqrt(2)), which keeps its
 * relative accuracy for negative x where 1 + erf cancels; fp32, one OpenMP loop. Submit with: kforge submit --task
 * gelu_erf_f32 examples/cpu/gelu_erf_f32.c */
#include <math.h>

int kf_launch(const float *x, float *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = x[i];
		y[i] = (0.5f * v * erfcf(-v * 0.70710678118654752f));
	}
	return 0;
}
