/* kforge-test: task=vector_add expect=crash */
/* Raises SIGSEGV on itself before computing anything. */
#include <signal.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	raise(SIGSEGV);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
