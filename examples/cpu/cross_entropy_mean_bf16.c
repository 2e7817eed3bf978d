/* Example candidate for cross_entropy_mean_bf16 (cpu backend): each row in one pass with an online log-sum-exp (a
 * running max m and sum s of exp(x - m), rescaled when m grows), rows across OpenMP threads, a double reduction.
 * Submit with: kforge submit --task cross_entropy_mean_bf16 examples/cpu/cross_entropy_mean_bf16.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const kf_bf16 *logits, const int32_t *targets, float *loss, int rows, int classes)
{
	double sum = 0;
#pragma omp parallel for reduction(+ : sum)
	for (int r = 0; r < rows; r++) {
		const kf_bf16 *z = logits + (size_t)r * classes;
		float m = -INFINITY, s = 0;
		for (int c = 0; c < classes; c++) {
			float v = kf_bf16_to_float(z[c]);
			if (v > m) {
				s = s * expf(m - v) + 1;
				m = v;
			} else {
				s += expf(v - m);
			}
		}
		sum += m + logf(s) - kf_bf16_to_float(z[targets[r]]);
	}
	loss[0] = (float)(sum / rows);
	return 0;
}
