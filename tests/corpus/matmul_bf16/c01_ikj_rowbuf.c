/* kforge-corpus: task=matmul_bf16 intended=correct */
/* i-k-j order into an fp32 row buffer; rows across threads. */
#include <stddef.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int fail = 0;
#pragma omp parallel
	{
		float *row = malloc(sizeof(float) * (size_t)N);
		if (!row) {
#pragma omp atomic write
			fail = 1;
		}
#pragma omp for
		for (int i = 0; i < M; i++) {
			if (!row)
				continue;
			for (int j = 0; j < N; j++)
				row[j] = 0;
			for (int k = 0; k < K; k++) {
				float a = kf_bf16_to_float(A[(size_t)i * K + k]);
				const kf_bf16 *bk = B + (size_t)k * N;
				for (int j = 0; j < N; j++)
					row[j] += a * kf_bf16_to_float(bk[j]);
			}
			for (int j = 0; j < N; j++)
				C[(size_t)i * N + j] = kf_float_to_bf16(row[j]);
		}
		free(row);
	}
	return fail;
}
