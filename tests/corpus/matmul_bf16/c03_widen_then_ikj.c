/* kforge-corpus: task=matmul_bf16 intended=correct */
/* Widens A and B to fp32 once, then an i-k-j product into C's accumulator. */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	float *a = malloc(sizeof(float) * (size_t)M * K), *b = malloc(sizeof(float) * (size_t)K * N);
	float *c = calloc((size_t)M * N, sizeof(float));
	if (!a || !b || !c) {
		free(a);
		free(b);
		free(c);
		return 1;
	}
#pragma omp parallel
	{
#pragma omp for
		for (size_t i = 0; i < (size_t)M * K; i++)
			a[i] = kf_bf16_to_float(A[i]);
#pragma omp for
		for (size_t i = 0; i < (size_t)K * N; i++)
			b[i] = kf_bf16_to_float(B[i]);
#pragma omp for
		for (int i = 0; i < M; i++) {
			for (int k = 0; k < K; k++) {
				float aik = a[(size_t)i * K + k];
				for (int j = 0; j < N; j++)
					c[(size_t)i * N + j] += aik * b[(size_t)k * N + j];
			}
			for (int j = 0; j < N; j++)
				C[(size_t)i * N + j] = kf_float_to_bf16(c[(size_t)i * N + j]);
		}
	}
	free(a);
	free(b);
	free(c);
	return 0;
}
