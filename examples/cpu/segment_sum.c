/* Example candidate for segment_sum (cpu backend): plain loops. Submit with:
 * kforge submit --task segment_sum examples/cpu/segment_sum.c */
#include <stddef.h>

int kf_launch(const float *x, const int32_t *offsets, float *y, int S, int T, int D)
{
	(void)T;
	for (int s = 0; s < S; s++)
		for (int d = 0; d < D; d++) {
			double acc = 0;
			for (int t = offsets[s]; t < offsets[s + 1]; t++)
				acc += x[(size_t)t * D + d];
			y[(size_t)s * D + d] = (float)acc;
		}
	return 0;
}
