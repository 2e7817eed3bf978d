/* Example candidate for layernorm_bf16 (cpu backend): one pass for the statistics over
 * x - x[r, 0] (shifting by a value from the row keeps the fp32 sums small, so a large mean
 * does not cancel), then one normalising pass; rows split across OpenMP threads.
 * kf_bf16 and its conversions come from the generated kf_task.h.
 * Submit with: kforge submit --task layernorm_bf16 examples/cpu/layernorm_bf16.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows,
	      int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *in = x + (size_t)r * cols;
		kf_bf16 *o = y + (size_t)r * cols;
		float shift = kf_bf16_to_float(in[0]), s1 = 0, s2 = 0;
		for (int c = 0; c < cols; c++) {
			float d = kf_bf16_to_float(in[c]) - shift;
			s1 += d;
			s2 += d * d;
		}
		float mean_d = s1 / (float)cols;
		float var = fmaxf(s2 / (float)cols - mean_d * mean_d, 0.0f);
		float mean = shift + mean_d, rstd = 1.0f / sqrtf(var + 1e-5f);
		for (int c = 0; c < cols; c++) {
			float v = (kf_bf16_to_float(in[c]) - mean) * rstd;
			o[c] = kf_float_to_bf16(v * kf_bf16_to_float(gamma[c]) + kf_bf16_to_float(beta[c]));
		}
	}
	return 0;
}
