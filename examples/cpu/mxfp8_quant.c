/* Example candidate for mxfp8_quant (cpu backend): the shared exponent read from amax's float bits.
 * Submit with: kforge submit --task mxfp8_quant examples/cpu/mxfp8_quant.c */
#include <math.h>
#include <stddef.h>

#define BLOCK 32

int kf_launch(const float *x, kf_fp8_e4m3 *q, uint8_t *scale, int M, int K)
{
	size_t blocks = (size_t)M * (size_t)(K / BLOCK);
#pragma omp parallel for
	for (size_t b = 0; b < blocks; b++) {
		const float *xb = x + b * BLOCK;
		float amax = 0;
		for (int i = 0; i < BLOCK; i++)
			amax = fmaxf(amax, fabsf(xb[i]));
		int e = amax > 0 ? ilogbf(amax) - 8 : -127;
		if (e < -127)
			e = -127;
		scale[b] = (uint8_t)(e + 127);
		for (int i = 0; i < BLOCK; i++)
			q[b * BLOCK + i] = amax > 0 ? kf_float_to_fp8_e4m3(ldexpf(xb[i], -e)) : 0;
	}
	return 0;
}
