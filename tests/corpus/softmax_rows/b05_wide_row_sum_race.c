/* kforge-corpus: task=softmax_rows intended=bug */
/* Very wide rows split their columns across threads, adding into one shared sum without a reduction. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = in[0], s = 0;
		for (int c = 1; c < cols; c++)
			m = fmaxf(m, in[c]);
		if (cols > 4096) {
#pragma omp parallel for
			for (int c = 0; c < cols; c++) {
				o[c] = expf(in[c] - m);
				s += o[c];
			}
		} else {
			for (int c = 0; c < cols; c++)
				s += (o[c] = expf(in[c] - m));
		}
		for (int c = 0; c < cols; c++)
			o[c] /= s;
	}
	return 0;
}
