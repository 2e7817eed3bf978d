/* Example candidate for nvfp4_quant (cpu backend): fp32 throughout, the header's E4M3 and E2M1 encoders.
 * Submit with: kforge submit --task nvfp4_quant examples/cpu/nvfp4_quant.c */
#include <math.h>
#include <stddef.h>

#define BLOCK 16

int kf_launch(const float *x, uint8_t *q, kf_fp8_e4m3 *sb, int M, int K, float gs)
{
	size_t blocks = (size_t)M * (size_t)(K / BLOCK);
#pragma omp parallel for
	for (size_t b = 0; b < blocks; b++) {
		const float *xb = x + b * BLOCK;
		float amax = 0;
		for (int i = 0; i < BLOCK; i++)
			amax = fmaxf(amax, fabsf(xb[i]));
		kf_fp8_e4m3 code = kf_float_to_fp8_e4m3(amax / 6.0f / gs);
		sb[b] = code;
		float d = kf_fp8_e4m3_to_float(code) * gs;
		for (int i = 0; i < BLOCK; i += 2) {
			uint8_t lo = d == 0 ? 0 : kf_float_to_fp4_e2m1(xb[i] / d);
			uint8_t hi = d == 0 ? 0 : kf_float_to_fp4_e2m1(xb[i + 1] / d);
			q[(b * BLOCK + i) / 2] = (uint8_t)(lo | hi << 4);
		}
	}
	return 0;
}
