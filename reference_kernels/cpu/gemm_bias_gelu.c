/* CPU reference for gemm_bias_gelu: C = gelu(A @ B + bias), exact (erf) GELU. B is widened to fp32 once; each row of
 * C is accumulated in an fp32 row buffer starting from the bias (i-k-j order: the inner loop is a vectorisable axpy
 * over a row of B), then rounded once to bf16. Rows split across OpenMP threads. */
#include <math.h>
#include <stdlib.h>

#define INV_SQRT2 0.70710678118654752f

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, const kf_bf16 *bias, kf_bf16 *C, int M, int N, int K)
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
				acc[j] = kf_bf16_to_float(bias[j]);
			for (int k = 0; k < K; k++) {
				float a = kf_bf16_to_float(A[(size_t)i * K + k]);
				const float *bk = b + (size_t)k * N;
#pragma omp simd
				for (int j = 0; j < N; j++)
					acc[j] += a * bk[j];
			}
			for (int j = 0; j < N; j++)
				C[(size_t)i * N + j] = kf_float_to_bf16(0.5f * acc[j] * (1.0f + erff(acc[j] * INV_SQRT2)));
		}
		free(acc);
	}
	free(b);
	return rc;
}
