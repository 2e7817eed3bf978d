/* kforge-corpus: task=layernorm_bf16 intended=correct */
/* One pass over x - x[0] (the shift keeps the sums small), then normalise. */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, kf_bf16 *y, int rows, int cols)
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
		float md = s1 / cols, var = fmaxf(s2 / cols - md * md, 0.0f);
		float mean = shift + md, rstd = 1.0f / sqrtf(var + 1e-5f);
		for (int c = 0; c < cols; c++)
			o[c] = kf_float_to_bf16((kf_bf16_to_float(in[c]) - mean) * rstd * kf_bf16_to_float(gamma[c]) +
						kf_bf16_to_float(beta[c]));
	}
	return 0;
}
