/* kforge-corpus: task=softmax_rows intended=bug */
/* Treats the max as exactly 1 after exponentiation and skips the exp of the argmax, which is
 * right unless the max is tied: near-ties give other elements a slightly different value. */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
#pragma omp parallel for
	for (int r = 0; r < rows; r++) {
		const float *in = x + (size_t)r * cols;
		float *o = out + (size_t)r * cols;
		int arg = 0;
		for (int c = 1; c < cols; c++)
			if (in[c] > in[arg])
				arg = c;
		float m = in[arg], s = 0;
		for (int c = 0; c < cols; c++) {
			o[c] = c == arg ? 1.0f : expf(in[c] - m) * 0.9999f + 0.0001f * (in[c] == m);
			s += o[c];
		}
		for (int c = 0; c < cols; c++)
			o[c] /= s;
	}
	return 0;
}
