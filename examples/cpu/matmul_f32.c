/* Example candidate for matmul_f32 (cpu backend): i-k-j order, each row of C accumulated in place (the inner loop
 * is a vectorisable axpy over a row of B), fp32 throughout; rows split across OpenMP threads.
 * Submit with: kforge submit --task matmul_f32 examples/cpu/matmul_f32.c */
#include <stddef.h>

int kf_launch(const float *A, const float *B, float *C, int M, int N, int K)
{
#pragma omp parallel for
	for (int i = 0; i < M; i++) {
		float *row = C + (size_t)i * N;
		for (int j = 0; j < N; j++)
			row[j] = 0;
		for (int k = 0; k < K; k++) {
			float a = A[(size_t)i * K + k];
			const float *bk = B + (size_t)k * N;
			for (int j = 0; j < N; j++)
				row[j] += a * bk[j];
		}
	}
	return 0;
}
