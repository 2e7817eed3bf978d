/* Example candidate for gemm_bias_gelu (cpu backend): B transposed to fp32 once, then a dot product per output with
 * the tanh approximation of GELU (within the task's tolerance); rows split across OpenMP threads.
 * Submit with: kforge submit --task gemm_bias_gelu examples/cpu/gemm_bias_gelu.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, const kf_bf16 *bias, kf_bf16 *C, int M, int N, int K)
{
	float *bt = malloc(((size_t)K * N + 1) * sizeof *bt);
	if (!bt)
		return 1;
#pragma omp parallel
	{
#pragma omp for
		for (int j = 0; j < N; j++)
			for (int k = 0; k < K; k++)
				bt[(size_t)j * K + k] = kf_bf16_to_float(B[(size_t)k * N + j]);
#pragma omp for
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				float z = kf_bf16_to_float(bias[j]);
				for (int k = 0; k < K; k++)
					z += kf_bf16_to_float(A[(size_t)i * K + k]) * bt[(size_t)j * K + k];
				float t = tanhf(0.7978845608f * (z + 0.044715f * z * z * z));
				C[(size_t)i * N + j] = kf_float_to_bf16(0.5f * z * (1.0f + t));
			}
	}
	free(bt);
	return 0;
}
