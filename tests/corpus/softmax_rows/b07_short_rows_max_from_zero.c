/* kforge-corpus: task=softmax_rows intended=bug */
/* Short rows start the max at 0 instead of -inf: all-negative rows underflow to 0/0. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = cols < 100 ? 0.0f : in[0], s = 0;
		for (int c = 0; c < cols; c++)
			m = fmaxf(m, in[c]);
		for (int c = 0; c < cols; c++)
			s += (o[c] = expf(in[c] - m));
		for (int c = 0; c < cols; c++)
			o[c] /= s;
	}
	return 0;
}
