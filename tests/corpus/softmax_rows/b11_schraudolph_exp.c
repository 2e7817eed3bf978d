/* kforge-corpus: task=softmax_rows intended=bug */
/* Schraudolph's bit-trick exp: fast, a few percent off. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static float bit_exp(float v)
{
	int32_t i = (int32_t)(12102203.0f * v) + 1065353216;
	if (v < -87.0f)
		return 0.0f;
	float f;
	memcpy(&f, &i, 4);
	return f;
}

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
			s += (o[c] = bit_exp(in[c] - m));
		for (int c = 0; c < cols; c++)
			o[c] /= s;
	}
	return 0;
}
