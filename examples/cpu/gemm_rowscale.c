/* Example candidate for gemm_rowscale (cpu backend): B transposed to fp32 once with b_scale folded in, then a dot
 * product per output times a_scale; rows split across OpenMP threads.
 * Submit with: kforge submit --task gemm_rowscale examples/cpu/gemm_rowscale.c */
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, const float *a_scale, const float *b_scale, kf_bf16 *C, int M,
	      int N, int K)
{
	float *bt = malloc(((size_t)K * N + 1) * sizeof *bt);
	if (!bt)
		return 1;
#pragma omp parallel
	{
#pragma omp for
		for (int j = 0; j < N; j++)
			for (int k = 0; k < K; k++)
				bt[(size_t)j * K + k] = kf_bf16_to_float(B[(size_t)k * N + j]) * b_scale[j];
#pragma omp for
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				float acc = 0;
				for (int k = 0; k < K; k++)
					acc += kf_bf16_to_float(A[(size_t)i * K + k]) * bt[(size_t)j * K + k];
				C[(size_t)i * N + j] = kf_float_to_bf16(acc * a_scale[i]);
			}
	}
	free(bt);
	return 0;
}
