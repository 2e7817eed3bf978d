/* Example candidate for log_softmax_rows (cpu backend): one online pass for the max and the rescaled sum of
 * exponentials, then out = x - (max + log(sum)), all fp32; rows split across OpenMP threads.
 * Submit with: kforge submit --task log_softmax_rows examples/cpu/log_softmax_rows.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float max = -INFINITY, sum = 0;
		for (int c = 0; c < cols; c++) {
			if (in[c] > max) {
				sum = sum * expf(max - in[c]) + 1.0f;
				max = in[c];
			} else {
				sum += expf(in[c] - max);
			}
		}
		float lse = max + logf(sum);
		for (int c = 0; c < cols; c++)
			o[c] = in[c] - lse;
	}
	return 0;
}
