/* Example candidate for fp8_gemm_tensorwise (cpu backend): decode both operands once into fp32 rows, then dot
 * products. Submit with: kforge submit --task fp8_gemm_tensorwise examples/cpu/fp8_gemm_tensorwise.c */
#include <stdlib.h>

int kf_launch(const kf_fp8_e4m3 *A, const kf_fp8_e4m3 *B, const float *scale_a, const float *scale_b, kf_bf16 *C,
	      int M, int N, int K)
{
	float *a = malloc(sizeof *a * (size_t)M * K), *b = malloc(sizeof *b * (size_t)N * K);
	if (!a || !b) {
		free(a);
		free(b);
		return 1;
	}
	for (size_t i = 0; i < (size_t)M * K; i++)
		a[i] = kf_fp8_e4m3_to_float(A[i]);
	for (size_t i = 0; i < (size_t)N * K; i++)
		b[i] = kf_fp8_e4m3_to_float(B[i]);
	float scale = scale_a[0] * scale_b[0];
#pragma omp parallel for
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += a[(size_t)m * K + k] * b[(size_t)n * K + k];
			C[(size_t)m * N + n] = kf_float_to_bf16(acc * scale);
		}
	free(a);
	free(b);
	return 0;
}
