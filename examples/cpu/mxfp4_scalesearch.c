/* Example candidate for mxfp4_scalesearch (cpu backend): each candidate exponent's error summed in double (the
 * element errors are exact there), the best exponent's codes written after the search.
 * Submit with: kforge submit --task mxfp4_scalesearch examples/cpu/mxfp4_scalesearch.c */
#include <math.h>
#include <stddef.h>

#define BLOCK 32

static const float e2m1_values[8] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6 };

/* E2M1 code of v by thresholds at the midpoints between its values; a tie goes to the even code (<= or <). */
static uint8_t e2m1_code(float v)
{
	float a = fabsf(v);
	uint8_t c = a <= 0.25f ? 0 : a < 0.75f ? 1 : a <= 1.25f ? 2 : a < 1.75f ? 3 : a <= 2.5f ? 4 : a < 3.5f ? 5 : a <= 5 ? 6 : 7;
	return (uint8_t)(c | (signbit(v) ? 8 : 0));
}

int kf_launch(const float *x, uint8_t *q, uint8_t *scale, float *err, int M, int K)
{
	size_t blocks = (size_t)M * (size_t)(K / BLOCK);
#pragma omp parallel for
	for (size_t b = 0; b < blocks; b++) {
		const float *xb = x + b * BLOCK;
		float amax = 0;
		for (int i = 0; i < BLOCK; i++)
			amax = fmaxf(amax, fabsf(xb[i]));
		int best = -127;
		double best_err = 0;
		if (amax > 0) {
			int e0 = ilogbf(amax) - 2;
			best_err = INFINITY;
			for (int e = e0 + 1; e >= e0 - 1; e--) {
				if (e < -127 || e > 127)
					continue;
				double sum = 0;
				for (int i = 0; i < BLOCK; i++) {
					double v = ldexp(copysign(e2m1_values[e2m1_code(ldexpf(xb[i], -e)) & 7], xb[i]), e);
					sum += (xb[i] - v) * (xb[i] - v);
				}
				if (sum < best_err) {
					best_err = sum;
					best = e;
				}
			}
		}
		scale[b] = (uint8_t)(best + 127);
		err[b] = (float)best_err;
		for (int i = 0; i < BLOCK; i += 2) {
			uint8_t lo = amax > 0 ? e2m1_code(ldexpf(xb[i], -best)) : 0;
			uint8_t hi = amax > 0 ? e2m1_code(ldexpf(xb[i + 1], -best)) : 0;
			q[(b * BLOCK + i) / 2] = (uint8_t)(lo | hi << 4);
		}
	}
	return 0;
}
