/* kforge-corpus: task=softmax_rows intended=bug */
/* The row max is taken over blocks of eight only: a large value in the tail escapes it, and
 * exp overflows on large-magnitude inputs of ragged widths. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		int q = cols / 8 * 8;
		float m = q ? -INFINITY : in[0];
		for (int c = 0; c < q; c++)
			m = fmaxf(m, in[c]);
		float s = 0;
		for (int c = 0; c < cols; c++)
			s += (o[c] = expf(in[c] - m));
		for (int c = 0; c < cols; c++)
			o[c] /= s;
	}
	return 0;
}
