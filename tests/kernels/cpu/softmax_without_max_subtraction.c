/* kforge-test: task=softmax_rows expect=wrong_answer */
/* Textbook softmax without subtracting the row maximum: exp overflows on the large-magnitude stress rows. */
#include <math.h>

int kf_launch(const float *x, float *out, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (long)r * cols;
		float *outr = out + (long)r * cols;
		float sum = 0.0f;
		for (int c = 0; c < cols; c++) {
			outr[c] = expf(xr[c]);
			sum += outr[c];
		}
		for (int c = 0; c < cols; c++)
			outr[c] /= sum;
	}
	return 0;
}
