/* kforge-corpus: task=softmax_rows intended=correct */
/* Online softmax: one pass keeps the running max and rescales the running sum. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = -INFINITY, s = 0;
		for (int c = 0; c < cols; c++) {
			float v = xr[c];
			if (v > m) {
				s = s * expf(m - v) + 1.0f;
				m = v;
			} else {
				s += expf(v - m);
			}
		}
		float inv = 1.0f / s;
		for (int c = 0; c < cols; c++)
			o[c] = expf(xr[c] - m) * inv;
	}
	return 0;
}
