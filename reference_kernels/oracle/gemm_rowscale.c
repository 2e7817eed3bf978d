/* fp64 oracle for gemm_rowscale: C[m, n] = (A @ B)[m, n] * a_scale[m] * b_scale[n]. */
#include <stddef.h>

int kf_oracle(const double *A, const double *B, const double *a_scale, const double *b_scale, double *C, int M,
	      int N, int K)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double acc = 0;
			for (int k = 0; k < K; k++)
				acc += A[(size_t)i * K + k] * B[(size_t)k * N + j];
			C[(size_t)i * N + j] = acc * a_scale[i] * b_scale[j];
		}
	return 0;
}
