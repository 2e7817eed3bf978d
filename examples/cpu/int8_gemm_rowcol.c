/* Example candidate for int8_gemm_rowcol (cpu backend): exact int32 dot products, then both scales in fp32.
 * Submit with: kforge submit --task int8_gemm_rowcol examples/cpu/int8_gemm_rowcol.c */
#include <stddef.h>

int kf_launch(const int8_t *A, const int8_t *B, const float *sa, const float *sb, kf_bf16 *C, int M, int N, int K)
{
#pragma omp parallel for
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			const int8_t *a = A + (size_t)m * K, *b = B + (size_t)n * K;
			int32_t acc = 0;
			for (int k = 0; k < K; k++)
				acc += a[k] * b[k];
			C[(size_t)m * N + n] = kf_float_to_bf16((float)acc * sa[m] * sb[n]);
		}
	return 0;
}
