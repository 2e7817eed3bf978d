/* kforge-corpus: task=softmax_rows intended=bug */
/* Rows in pairs; an odd last row is never written. */
#include <math.h>
#include <stddef.h>

static void row_softmax(const float *in, float *o, int cols)
{
	float m = in[0], s = 0;
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, in[c]);
	for (int c = 0; c < cols; c++)
		s += (o[c] = expf(in[c] - m));
	for (int c = 0; c < cols; c++)
		o[c] /= s;
}

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int p = 0; p < rows / 2; p++) {
		row_softmax(x + (size_t)(2 * p) * cols, out + (size_t)(2 * p) * cols, cols);
		row_softmax(x + (size_t)(2 * p + 1) * cols, out + (size_t)(2 * p + 1) * cols, cols);
	}
	return 0;
}
