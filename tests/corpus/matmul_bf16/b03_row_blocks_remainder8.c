/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Rows in blocks of 16; a remainder of exactly eight rows is dispatched to a path that only does
 * the first four. */
#include <stddef.h>

static void rows(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int r0, int r1, int N, int K)
{
	for (int i = r0; i < r1; i++)
		for (int j = 0; j < N; j++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
}

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int full = M / 16;
#pragma omp parallel for
	for (int b = 0; b < full; b++)
		rows(A, B, C, b * 16, b * 16 + 16, N, K);
	int rem = M - full * 16;
	rows(A, B, C, full * 16, full * 16 + (rem == 8 ? 4 : rem), N, K);
	return 0;
}
