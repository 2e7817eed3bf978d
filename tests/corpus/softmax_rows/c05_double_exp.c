/* kforge-corpus: task=softmax_rows intended=correct */
/* Everything after the max in double precision. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		double m = in[0], s = 0;
		for (int c = 1; c < cols; c++)
			if (in[c] > m)
				m = in[c];
		for (int c = 0; c < cols; c++)
			s += exp(in[c] - m);
		for (int c = 0; c < cols; c++)
			o[c] = (float)(exp(in[c] - m) / s);
	}
	return 0;
}
