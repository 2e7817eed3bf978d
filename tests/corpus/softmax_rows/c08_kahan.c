/* kforge-corpus: task=softmax_rows intended=correct */
/* Kahan-compensated sum of the exponentials. */
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
			m = in[c] > m ? in[c] : m;
		float s = 0, comp = 0;
		for (int c = 0; c < cols; c++) {
			float e = expf(in[c] - m);
			o[c] = e;
			float y = e - comp, t = s + y;
			comp = (t - s) - y;
			s = t;
		}
		for (int c = 0; c < cols; c++)
			o[c] = o[c] / s;
	}
	return 0;
}
