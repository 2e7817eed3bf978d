/* Example candidate for cross_entropy_rows (cpu backend): one online fp32 pass per row for the max and the rescaled
 * sum of exponentials, then loss = max + log(sum) - x[target]; rows split across OpenMP threads.
 * Submit with: kforge submit --task cross_entropy_rows examples/cpu/cross_entropy_rows.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *logits, const int32_t *targets, float *loss, int rows, int classes)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *in = logits + (size_t)r * classes;
		float max = -INFINITY, sum = 0;
		for (int c = 0; c < classes; c++) {
			float v = kf_bf16_to_float(in[c]);
			if (v > max) {
				sum = sum * expf(max - v) + 1.0f;
				max = v;
			} else {
				sum += expf(v - max);
			}
		}
		int t = targets[r];
		loss[r] = t >= 0 && t < classes ? max + logf(sum) - kf_bf16_to_float(in[t]) : NAN;
	}
	return 0;
}
