/* Example candidate for softmax_rows (cpu backend): three passes per row (max, sum of
 * exponentials, scale), rows split across OpenMP threads.
 * Submit with: kforge submit --task softmax_rows examples/cpu/softmax_rows.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float max = in[0], sum = 0;
		for (int c = 1; c < cols; c++)
			if (in[c] > max)
				max = in[c];
		for (int c = 0; c < cols; c++) {
			o[c] = expf(in[c] - max);
			sum += o[c];
		}
		for (int c = 0; c < cols; c++)
			o[c] /= sum;
	}
	return 0;
}
