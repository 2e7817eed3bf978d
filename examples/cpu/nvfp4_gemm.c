/* Example candidate for nvfp4_gemm (cpu backend): per 16-element block, an fp32 dot product of the decoded codes,
 * scaled by both blocks' scales. Submit with: kforge submit --task nvfp4_gemm examples/cpu/nvfp4_gemm.c */
#include <stddef.h>

#define BLOCK 16

int kf_launch(const kf_fp4x2 *Aq, const kf_fp8_e4m3 *sa, const kf_fp4x2 *Bq, const kf_fp8_e4m3 *sb, kf_bf16 *C,
	      int M, int N, int K, float alpha)
{
	int blocks = K / BLOCK;
#pragma omp parallel for
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float acc = 0;
			for (int b = 0; b < blocks; b++) {
				float part = 0;
				for (int i = 0; i < BLOCK / 2; i++) {
					uint8_t a = Aq[((size_t)m * K + b * BLOCK) / 2 + i], w = Bq[((size_t)n * K + b * BLOCK) / 2 + i];
					part += kf_fp4_e2m1_to_float(a & 15) * kf_fp4_e2m1_to_float(w & 15) +
						kf_fp4_e2m1_to_float(a >> 4) * kf_fp4_e2m1_to_float(w >> 4);
				}
				acc += part * kf_fp8_e4m3_to_float(sa[(size_t)m * blocks + b]) *
				       kf_fp8_e4m3_to_float(sb[(size_t)n * blocks + b]);
			}
			C[(size_t)m * N + n] = kf_float_to_bf16(alpha * acc);
		}
	return 0;
}
