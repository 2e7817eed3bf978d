/* Example candidate for tensor3d_matmul_f32 (cpu backend): the batch is one [B*M, K] x [K, N] product (A is
 * contiguous), computed row by row in i-k-j order so the inner loop streams a row of W into a row of C; rows
 * across OpenMP threads. Submit with: kforge submit --task tensor3d_matmul_f32 examples/cpu/tensor3d_matmul_f32.c */
#include <stddef.h>

int kf_launch(const float *A, const float *W, float *C, int B, int M, int N, int K)
{
#pragma omp parallel for
	for (int r = 0; r < B * M; r++) {
		float *c = C + (size_t)r * N;
		for (int j = 0; j < N; j++)
			c[j] = 0;
		for (int k = 0; k < K; k++) {
			float a = A[(size_t)r * K + k];
			const float *w = W + (size_t)k * N;
#pragma omp simd
			for (int j = 0; j < N; j++)
				c[j] += a * w[j];
		}
	}
	return 0;
}
