/* Example candidate for fp8_gemm_blockwise (cpu backend): the DeepSeek-V3 kernel's order, one fp32 partial sum per
 * 128-wide K group, scaled by both groups' scales and added to the total.
 * Submit with: kforge submit --task fp8_gemm_blockwise examples/cpu/fp8_gemm_blockwise.c */
#include <stddef.h>

#define GROUP 128

int kf_launch(const kf_fp8_e4m3 *A, const kf_fp8_e4m3 *B, const float *sa, const float *sb, kf_bf16 *C, int M,
	      int N, int K)
{
	int groups = K / GROUP;
#pragma omp parallel for
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float total = 0;
			for (int g = 0; g < groups; g++) {
				float part = 0;
				for (int k = g * GROUP; k < (g + 1) * GROUP; k++)
					part += kf_fp8_e4m3_to_float(A[(size_t)m * K + k]) *
						kf_fp8_e4m3_to_float(B[(size_t)n * K + k]);
				total += part * sa[(size_t)m * groups + g] * sb[(size_t)(n / GROUP) * groups + g];
			}
			C[(size_t)m * N + n] = kf_float_to_bf16(total);
		}
	return 0;
}
