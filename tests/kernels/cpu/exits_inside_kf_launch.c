/* kforge-test: task=vector_add expect=crash */
/* Ends the runner with a clean exit status in the middle of a call. */
#include <stdlib.h>

int kf_launch(const float *x, const float *y, float *out, int n)
{
	(void)x;
	(void)y;
	(void)out;
	(void)n;
	exit(0);
}
