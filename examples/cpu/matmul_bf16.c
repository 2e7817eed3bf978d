/* Example candidate for matmul_bf16 (cpu backend): B is widened to fp32 once per call, then
 * each row of C is accumulated in an fp32 row buffer (i-k-j order, so the inner loop is a
 * vectorisable axpy over a row of B); rows split across OpenMP threads.
 * Submit with: kforge submit --task matmul_bf16 examples/cpu/matmul_bf16.c */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	float *b = malloc((size_t)K * N * sizeof *b);
	float *acc = malloc((size_t)M * N * sizeof *acc);
	if (!b || !acc) {
		free(b);
		free(acc);
		return 1;
	}
#pragma omp parallel
	{
#pragma omp for
		for (size_t i = 0; i < (size_t)K * N; i++)
			b[i] = kf_bf16_to_float(B[i]);
#pragma omp for
		for (int i = 0; i < M; i++) {
			float *row = acc + (size_t)i * N;
			for (int j = 0; j < N; j++)
				row[j] = 0;
			for (int k = 0; k < K; k++) {
				float a = kf_bf16_to_float(A[(size_t)i * K + k]);
				const float *bk = b + (size_t)k * N;
				for (int j = 0; j < N; j++)
					row[j] += a * bk[j];
			}
			for (int j = 0; j < N; j++)
				C[(size_t)i * N + j] = kf_float_to_bf16(row[j]);
		}
	}
	free(b);
	free(acc);
	return 0;
}
