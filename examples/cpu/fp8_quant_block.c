/* Example candidate for fp8_quant_block (cpu backend): one pass for the group's amax, one to quantise.
 * Submit with: kforge submit --task fp8_quant_block examples/cpu/fp8_quant_block.c */
#include <math.h>
#include <stddef.h>

#define GROUP 128

int kf_launch(const kf_bf16 *x, kf_fp8_e4m3 *q, float *s, int M, int K)
{
	size_t groups = (size_t)M * (size_t)(K / GROUP);
#pragma omp parallel for
	for (size_t g = 0; g < groups; g++) {
		float amax = 0;
		for (int i = 0; i < GROUP; i++)
			amax = fmaxf(amax, fabsf(kf_bf16_to_float(x[g * GROUP + i])));
		float scale = amax > 0 ? amax / 448.0f : 1.0f;
		s[g] = scale;
		for (int i = 0; i < GROUP; i++)
			q[g * GROUP + i] = kf_float_to_fp8_e4m3(kf_bf16_to_float(x[g * GROUP + i]) / scale);
	}
	return 0;
}
