/* Example candidate for fp8_gemm (cpu backend): plain loops. Submit with:
 * kforge submit --task fp8_gemm examples/cpu/fp8_gemm.c */
#include <stddef.h>

int kf_launch(const kf_fp8_e4m3 *A, const kf_fp8_e5m2 *B, float *C, int M, int N, int K, float scale)
{
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += kf_fp8_e4m3_to_float(A[(size_t)m * K + k]) * kf_fp8_e5m2_to_float(B[(size_t)k * N + n]);
			C[(size_t)m * N + n] = scale * acc;
		}
	return 0;
}
