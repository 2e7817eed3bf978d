/* kforge-corpus: task=softmax_rows intended=correct */
/* OpenMP simd reductions for the max and the sum. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float m = -INFINITY, s = 0;
#pragma omp simd reduction(max : m)
		for (int c = 0; c < cols; c++)
			m = in[c] > m ? in[c] : m;
#pragma omp simd reduction(+ : s)
		for (int c = 0; c < cols; c++) {
			o[c] = expf(in[c] - m);
			s += o[c];
		}
		float inv = 1.0f / s;
#pragma omp simd
		for (int c = 0; c < cols; c++)
			o[c] *= inv;
	}
	return 0;
}
