/* Example candidate for frobenius_norm_f32 (cpu backend): the sum of squares in double by an OpenMP reduction, then
 * one reciprocal square root and a multiply per element.
 * Submit with: kforge submit --task frobenius_norm_f32 examples/cpu/frobenius_norm_f32.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *y, int B, int D)
{
	size_t n = (size_t)B * D;
	double ss = 0;
#pragma omp parallel for reduction(+ : ss)
	for (size_t i = 0; i < n; i++)
		ss += (double)x[i] * x[i];
	const double inv = 1 / sqrt(ss);
#pragma omp parallel for
	for (size_t i = 0; i < n; i++)
		y[i] = (float)(x[i] * inv);
	return 0;
}
