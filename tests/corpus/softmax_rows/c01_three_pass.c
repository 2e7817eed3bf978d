/* kforge-corpus: task=softmax_rows intended=correct */
/* Max, sum of exponentials, scale: three passes per row, rows across threads. */
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
			m = in[c] > m ? in[c] : m;
		for (int c = 0; c < cols; c++) {
			o[c] = expf(in[c] - m);
			s += o[c];
		}
		for (int c = 0; c < cols; c++)
			o[c] /= s;
	}
	return 0;
}
