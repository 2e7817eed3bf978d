/* kforge-test: task=vector_add expect=compile_error */
/* Includes itself without a guard: the compile must end with an error, not hang or eat the disk. */
#include __FILE__

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
