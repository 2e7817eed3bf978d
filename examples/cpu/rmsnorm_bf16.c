/* Example candidate for rmsnorm_bf16 (cpu backend): the sum of squares in double, then y = (x * gamma) / rms,
 * rounded to bf16; rows split across OpenMP threads.
 * Submit with: kforge submit --task rmsnorm_bf16 examples/cpu/rmsnorm_bf16.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, kf_bf16 *y, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *in = x + (size_t)r * cols;
		double ss = 0;
		for (int c = 0; c < cols; c++) {
			double v = kf_bf16_to_float(in[c]);
			ss += v * v;
		}
		float rms = (float)sqrt(ss / cols + 1e-6);
		for (int c = 0; c < cols; c++)
			y[(size_t)r * cols + c] =
				kf_float_to_bf16(kf_bf16_to_float(in[c]) * kf_bf16_to_float(gamma[c]) / rms);
	}
	return 0;
}
