/* kforge-corpus: task=matmul_bf16 intended=bug */
/* Columns past the last multiple of 8 are computed by whichever thread gets there, through a
 * shared scratch row: a race when two threads do it at once. */
#include <stddef.h>

#define MAX_TAIL 8

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int q = N / 8 * 8;
	float tail[MAX_TAIL];
#pragma omp parallel for shared(tail)
	for (int i = 0; i < M; i++) {
		for (int j = 0; j < q; j++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(acc);
		}
		for (int j = q; j < N; j++) {
			tail[j - q] = 0;
			for (int k = 0; k < K; k++)
				tail[j - q] += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
			C[(size_t)i * N + j] = kf_float_to_bf16(tail[j - q]);
		}
	}
	return 0;
}
