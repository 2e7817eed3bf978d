/* kforge-corpus: task=softmax_rows intended=bug */
/* Wide rows are scaled four columns at a time; the remainder code forgets a remainder of one. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = in[0], s = 0;
		for (int c = 1; c < cols; c++)
			m = fmaxf(m, in[c]);
		for (int c = 0; c < cols; c++)
			s += (o[c] = expf(in[c] - m));
		float inv = 1.0f / s;
		if (cols < 256) {
			for (int c = 0; c < cols; c++)
				o[c] *= inv;
			continue;
		}
		int q = cols / 4 * 4;
		for (int c = 0; c < q; c += 4) {
			o[c] *= inv;
			o[c + 1] *= inv;
			o[c + 2] *= inv;
			o[c + 3] *= inv;
		}
		switch (cols - q) {
		case 3:
			o[q + 2] *= inv; /* fall through */
		case 2:
			o[q + 1] *= inv;
			o[q] *= inv;
			break;
		default:
			break;
		}
	}
	return 0;
}
