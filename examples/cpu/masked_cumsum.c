/* Example candidate for masked_cumsum (cpu backend): plain loops. Submit with:
 * kforge submit --task masked_cumsum examples/cpu/masked_cumsum.c */
#include <stddef.h>

int kf_launch(const float *x, const bool *mask, float *out, int B, int N)
{
	for (int b = 0; b < B; b++) {
		double acc = 0;
		for (int i = 0; i < N; i++) {
			size_t at = (size_t)b * N + i;
			if (mask[at])
				acc += x[at];
			out[at] = (float)acc;
		}
	}
	return 0;
}
