/* kforge-corpus: task=softmax_rows intended=bug */
/* Rows go in blocks of 32; a remainder of exactly four rows takes a "vectorised" path that assumes
 * rows padded to a multiple of eight columns. */
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
	int full = rows / 32 * 32;
#pragma omp parallel for
	for (int r = 0; r < full; r++)
		row_softmax(x + (size_t)r * cols, out + (size_t)r * cols, cols);
	int rem = rows - full;
	size_t padded = (size_t)(cols + 7) / 8 * 8;
	for (int k = 0; k < rem; k++) {
		size_t stride = rem == 4 ? padded : (size_t)cols;
		row_softmax(x + (size_t)full * cols + k * stride, out + (size_t)(full + k) * cols, cols);
	}
	return 0;
}
