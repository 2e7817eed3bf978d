/* kforge-test: task=vector_add expect=compile_error reason~=large */
/* A 300 MB initialised array makes a 300 MB object: kept in the compile cache forever, one per distinct
 * source, it fills the disk. The object is capped, and nothing of it is cached. */
#include <stdint.h>

#define KF_HUGE_BYTES (300u << 20)

static const unsigned char huge[KF_HUGE_BYTES] = { 1 };
/* volatile: the compiler cannot prove the array unused and drop it. */
static const unsigned char *volatile huge_ptr = huge;

int kf_launch(const float *x, const float *y, float *out, int n)
{
	float one = (float)huge_ptr[0];
	for (int i = 0; i < n; i++)
		out[i] = (x[i] + y[i]) * one;
	return 0;
}
