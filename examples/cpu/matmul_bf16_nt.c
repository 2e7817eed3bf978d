/* Example candidate for matmul_bf16_nt (cpu backend): each C[i, j] a dot product of row i of A and row j of B,
 * widened on the fly, fp32 accumulation; rows of C split across OpenMP threads.
 * Submit with: kforge submit --task matmul_bf16_nt examples/cpu/matmul_bf16_nt.c */
#include <stddef.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float sum = 0;
			for (int k = 0; k < K; k++)
				sum += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)j * K + k]);
			C[(size_t)i * N + j] = kf_float_to_bf16(sum);
		}
	return 0;
}
