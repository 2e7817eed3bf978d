/* kforge-corpus: task=softmax_rows intended=correct */
/* The sum of exponentials accumulated in double; a reciprocal multiply at the end. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = -INFINITY;
		for (int c = 0; c < cols; c++)
			m = fmaxf(m, xr[c]);
		double s = 0;
		for (int c = 0; c < cols; c++) {
			o[c] = expf(xr[c] - m);
			s += o[c];
		}
		float inv = (float)(1.0 / s);
		for (int c = 0; c < cols; c++)
			o[c] *= inv;
	}
	return 0;
}
