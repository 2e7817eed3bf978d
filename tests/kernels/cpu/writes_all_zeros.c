/* kforge-test: task=vector_add expect=trivial_output */
/* Writes zeros everywhere, every element "written", hoping a loose tolerance lets them through. */
#include <string.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	(void)x;
	(void)y;
	memset(out, 0, (size_t)n * sizeof *out);
	return 0;
}
