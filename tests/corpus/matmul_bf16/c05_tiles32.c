/* kforge-corpus: task=matmul_bf16 intended=correct */
/* 32x32 output tiles with clipped edges, fp32 tile accumulator. */
#include <stddef.h>

#define T 32

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int tm = (M + T - 1) / T, tn = (N + T - 1) / T;
#pragma omp parallel for collapse(2)
	for (int bi = 0; bi < tm; bi++)
		for (int bj = 0; bj < tn; bj++) {
			float acc[T][T] = { { 0 } };
			int i1 = (bi + 1) * T < M ? (bi + 1) * T : M, j1 = (bj + 1) * T < N ? (bj + 1) * T : N;
			for (int k = 0; k < K; k++)
				for (int i = bi * T; i < i1; i++) {
					float a = kf_bf16_to_float(A[(size_t)i * K + k]);
					for (int j = bj * T; j < j1; j++)
						acc[i - bi * T][j - bj * T] += a * kf_bf16_to_float(B[(size_t)k * N + j]);
				}
			for (int i = bi * T; i < i1; i++)
				for (int j = bj * T; j < j1; j++)
					C[(size_t)i * N + j] = kf_float_to_bf16(acc[i - bi * T][j - bj * T]);
		}
	return 0;
}
