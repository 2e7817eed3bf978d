/* kforge-corpus: task=matmul_bf16 intended=correct */
/* 4x4 register tiles; edge tiles handled element by element. */
#include <stddef.h>

static float dot(const kf_bf16 *A, const kf_bf16 *B, int i, int j, int N, int K)
{
	float acc = 0;
	for (int k = 0; k < K; k++)
		acc += kf_bf16_to_float(A[(size_t)i * K + k]) * kf_bf16_to_float(B[(size_t)k * N + j]);
	return acc;
}

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K)
{
	int m4 = M / 4 * 4, n4 = N / 4 * 4;
#pragma omp parallel for
	for (int i = 0; i < m4; i += 4)
		for (int j = 0; j < n4; j += 4) {
			float acc[4][4] = { { 0 } };
			for (int k = 0; k < K; k++) {
				float a[4], b[4];
				for (int t = 0; t < 4; t++) {
					a[t] = kf_bf16_to_float(A[(size_t)(i + t) * K + k]);
					b[t] = kf_bf16_to_float(B[(size_t)k * N + j + t]);
				}
				for (int u = 0; u < 4; u++)
					for (int v = 0; v < 4; v++)
						acc[u][v] += a[u] * b[v];
			}
			for (int u = 0; u < 4; u++)
				for (int v = 0; v < 4; v++)
					C[(size_t)(i + u) * N + j + v] = kf_float_to_bf16(acc[u][v]);
		}
#pragma omp parallel for
	for (int i = 0; i < M; i++)
		for (int j = i < m4 ? n4 : 0; j < N; j++)
			C[(size_t)i * N + j] = kf_float_to_bf16(dot(A, B, i, j, N, K));
	return 0;
}
