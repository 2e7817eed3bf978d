/* kforge-test: task=vector_add expect=wrong_answer */
/* Correct everywhere except one element in the middle, which is +Inf. */
#include <math.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	out[n / 2] = INFINITY;
	return 0;
}
