/* kforge-corpus: task=softmax_rows intended=bug */
/* Short rows (under 64 columns) skip the max subtraction "because they are cheap". */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = 0;
		if (cols >= 64) {
			m = in[0];
			for (int c = 1; c < cols; c++)
				m = fmaxf(m, in[c]);
		}
		float s = 0;
		for (int c = 0; c < cols; c++)
			s += (o[c] = expf(in[c] - m));
		for (int c = 0; c < cols; c++)
			o[c] /= s;
	}
	return 0;
}
