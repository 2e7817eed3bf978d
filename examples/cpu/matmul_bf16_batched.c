/* Example candidate for matmul_bf16_batched (cpu backend): per matrix and row, i-k-j accumulation in an fp32 row
 * buffer, rounded to bf16 at the end; (matrix, row) pairs split across OpenMP threads.
 * Submit with: kforge submit --task matmul_bf16_batched examples/cpu/matmul_bf16_batched.c */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int batch, int M, int N, int K)
{
	float *acc = malloc(((size_t)batch * M * N + 1) * sizeof *acc);
	if (!acc)
		return 1;
	long long rows = (long long)batch * M;
#pragma omp parallel for
	for (long long r = 0; r < rows; r++) {
		const kf_bf16 *b_mat = B + (size_t)(r / M) * K * N;
		float *row = acc + (size_t)r * N;
		for (int j = 0; j < N; j++)
			row[j] = 0;
		for (int k = 0; k < K; k++) {
			float a = kf_bf16_to_float(A[(size_t)r * K + k]);
			for (int j = 0; j < N; j++)
				row[j] += a * kf_bf16_to_float(b_mat[(size_t)k * N + j]);
		}
		for (int j = 0; j < N; j++)
			C[(size_t)r * N + j] = kf_float_to_bf16(row[j]);
	}
	free(acc);
	return 0;
}
