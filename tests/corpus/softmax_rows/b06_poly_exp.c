/* kforge-corpus: task=softmax_rows intended=bug */
/* A cheap exp: 2^x split into an integer power and a cubic for the fraction (about 1e-4 relative error). */
#include <math.h>
#include <stddef.h>

static float fast_exp(float v)
{
	float t = v * 1.44269504f; /* log2(e) */
	float fi = floorf(t), f = t - fi;
	float p = 1.0f + f * (0.6951786f + f * (0.2261429f + f * 0.0786782f));
	return ldexpf(p, (int)fi);
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
			s += (o[c] = fast_exp(in[c] - m));
		for (int c = 0; c < cols; c++)
			o[c] /= s;
	}
	return 0;
}
