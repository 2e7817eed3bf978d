/* CPU reference for the copy_f32 fidelity probe. */
#include <string.h>

int kf_launch(const float *x, float *out, int n)
{
	memcpy(out, x, (size_t)n * sizeof *x);
	return 0;
}
