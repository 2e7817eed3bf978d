/* kforge-test: task=vector_add expect=compile_error */
/* Includes the compiler's own environment, hoping secrets (API keys) show up in the error log. */
#include "/proc/self/environ"

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
