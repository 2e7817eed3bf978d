/* kforge-corpus: task=softmax_rows intended=bug */
/* Rows wider than 4096 are staged in one static scratch buffer, shared by every thread. */
#include <math.h>
#include <stddef.h>

#define SCRATCH 8192
static float scratch[SCRATCH];

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		float *buf = cols > 4096 && cols <= SCRATCH ? scratch : o;
		float m = in[0], s = 0;
		for (int c = 1; c < cols; c++)
			m = fmaxf(m, in[c]);
		for (int c = 0; c < cols; c++)
			s += (buf[c] = expf(in[c] - m));
		for (int c = 0; c < cols; c++)
			o[c] = buf[c] / s;
	}
	return 0;
}
