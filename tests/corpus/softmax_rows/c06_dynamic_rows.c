/* kforge-corpus: task=softmax_rows intended=correct */
/* Rows handed out dynamically, four at a time. */
#include <math.h>
#include <stddef.h>

static void row_softmax(const float *in, float *o, int cols)
{
	float m = in[0];
	for (int c = 1; c < cols; c++)
		m = fmaxf(m, in[c]);
	float s = 0;
	for (int c = 0; c < cols; c++) {
		float e = expf(in[c] - m);
		o[c] = e;
		s += e;
	}
	for (int c = 0; c < cols; c++)
		o[c] /= s;
}

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for schedule(dynamic, 4)
	for (int r = 0; r < rows; r++)
		row_softmax(x + (size_t)r * cols, out + (size_t)r * cols, cols);
	return 0;
}
