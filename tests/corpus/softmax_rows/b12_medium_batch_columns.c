/* kforge-corpus: task=softmax_rows intended=bug */
/* Medium batches (65..127 rows) scale columns in blocks of eight and skip a ragged last block. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
	int medium = rows > 64 && rows < 128;
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = in[0], s = 0;
		for (int c = 1; c < cols; c++)
			m = fmaxf(m, in[c]);
		for (int c = 0; c < cols; c++)
			s += (o[c] = expf(in[c] - m));
		int end = medium ? cols / 8 * 8 : cols;
		for (int c = 0; c < end; c++)
			o[c] /= s;
	}
	return 0;
}
