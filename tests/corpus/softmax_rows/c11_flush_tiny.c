/* kforge-corpus: task=softmax_rows intended=correct */
/* Flushes probabilities below 1e-30 to zero (inside the tolerance, so still correct). */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = -INFINITY, s = 0;
		for (int c = 0; c < cols; c++)
			m = fmaxf(m, in[c]);
		for (int c = 0; c < cols; c++)
			s += (o[c] = expf(in[c] - m));
		for (int c = 0; c < cols; c++) {
			float p = o[c] / s;
			o[c] = p < 1e-30f ? 0.0f : p;
		}
	}
	return 0;
}
