/* CPU reference for gemm_rowscale: C = (A @ B) * a_scale[m] * b_scale[n]. B is widened to fp32 once; each row of C
 * is an fp32 accumulator row filled by axpys over rows of B, scaled and rounded once. Rows split across OpenMP
 * threads. */
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, const float *a_scale, const float *b_scale, kf_bf16 *C, int M,
	      int N, int K)
{
	float *b = malloc(((size_t)K * N + 1) * sizeof *b);
	if (!b)
		return 1;
	int rc = 0;
#pragma omp parallel
	{
#pragma omp for schedule(static)
		for (size_t i = 0; i < (size_t)K * N; i++)
			b[i] = kf_bf16_to_float(B[i]);
		float *acc = malloc(((size_t)N + 1) * sizeof *acc);
		if (!acc) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(static)
		for (int i = 0; i < M; i++) {
			if (!acc)
				continue;
			for (int j = 0; j < N; j++)
				acc[j] = 0;
			for (int k = 0; k < K; k++) {
				float a = kf_bf16_to_float(A[(size_t)i * K + k]);
				const float *bk = b + (size_t)k * N;
#pragma omp simd
				for (int j = 0; j < N; j++)
					acc[j] += a * bk[j];
			}
			for (int j = 0; j < N; j++)
				C[(size_t)i * N + j] = kf_float_to_bf16(acc[j] * a_scale[i] * b_scale[j]);
		}
		free(acc);
	}
	free(b);
	return rc;
}
