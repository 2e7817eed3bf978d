/* kforge-test: task=vector_add expect=nondeterministic */
/* Right within tolerance everywhere, but the first call of each process rounds out[0] one ulp
 * up whenever n > 1 (state left uninitialised until the first call, say): the same inputs give
 * different bits in another process. The judge's same-process repeat at n = 1 cannot see it. */
#include <math.h>

static int calls;

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	if (n > 1 && calls++ == 0)
		out[0] = nextafterf(out[0], INFINITY);
	return 0;
}
