/* kforge-test: task=vector_add expect=trivial_output */
/* Returns a copy of x instead of x + y. */
#include <string.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	(void)y;
	memcpy(out, x, (size_t)n * sizeof *out);
	return 0;
}
