/* kforge-corpus: task=softmax_rows intended=correct */
/* Three passes with a reciprocal multiply instead of a divide. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = -INFINITY;
		for (int c = 0; c < cols; c++)
			if (in[c] > m)
				m = in[c];
		float s = 0;
		for (int c = 0; c < cols; c++)
			s += (o[c] = expf(in[c] - m));
		float inv = 1.0f / s;
		for (int c = 0; c < cols; c++)
			o[c] = o[c] * inv;
	}
	return 0;
}
