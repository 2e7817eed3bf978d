/* Example candidate for fp8_dequant_block (cpu backend): one 128x128 block at a time.
 * Submit with: kforge submit --task fp8_dequant_block examples/cpu/fp8_dequant_block.c */
#include <stddef.h>

#define BLOCK 128

int kf_launch(const kf_fp8_e4m3 *q, const float *s, kf_bf16 *y, int M, int K)
{
	int mb = (M + BLOCK - 1) / BLOCK, kb = K / BLOCK;
#pragma omp parallel for collapse(2)
	for (int bi = 0; bi < mb; bi++)
		for (int bj = 0; bj < kb; bj++) {
			float scale = s[(size_t)bi * kb + bj];
			for (int m = bi * BLOCK; m < M && m < (bi + 1) * BLOCK; m++)
				for (int k = bj * BLOCK; k < (bj + 1) * BLOCK; k++)
					y[(size_t)m * K + k] = kf_float_to_bf16(kf_fp8_e4m3_to_float(q[(size_t)m * K + k]) * scale);
		}
	return 0;
}
