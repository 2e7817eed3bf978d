/* Example candidate for softsign_f32 (cpu backend): a reciprocal and a multiply; fp32, one OpenMP loop. Submit
 * with: kforge submit --task softsign_f32 examples/cpu/softsign_f32.c */
#include <math.h>

int kf_launch(const float *x, float *y, int N)
{
#pragma omp parallel for simd
	for (int i = 0; i < N; i++) {
		float v = x[i];
		y[i] = (v * (1.0f / (1.0f + fabsf(v))));
	}
	return 0;
}
