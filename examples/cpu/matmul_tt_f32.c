/* Example candidate for matmul_tt_f32 (cpu backend): B stored [N, K] is already B^T's columns as rows, so
 * C[m, n] = dot(column m of A, row n of B); column m of A is gathered into a contiguous buffer once per row of C and
 * each output is a unit-stride dot product; rows of C across OpenMP threads.
 * Submit with: kforge submit --task matmul_tt_f32 examples/cpu/matmul_tt_f32.c */
#include <stdlib.h>

int kf_launch(const float *A, const float *B, float *C, int M, int N, int K)
{
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int m = 0; m < M; m++) {
		float *col = malloc(sizeof *col * (K ? (size_t)K : 1));
		if (!col) {
			rc = 1;
			continue;
		}
		for (int k = 0; k < K; k++)
			col[k] = A[(size_t)k * M + m];
		for (int n = 0; n < N; n++) {
			const float *b = B + (size_t)n * K;
			float acc = 0;
#pragma omp simd reduction(+ : acc)
			for (int k = 0; k < K; k++)
				acc += col[k] * b[k];
			C[(size_t)m * N + n] = acc;
		}
		free(col);
	}
	return rc;
}
