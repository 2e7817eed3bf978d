/* Example candidate for matmul_ta_f16 (cpu backend): with A stored [K, M], C is a sum over k of outer products
 * A[k, :] x B[k, :]; each thread owns a block of C's rows and adds the K outer products into fp32 accumulators,
 * rounding once at the end. Submit with: kforge submit --task matmul_ta_f16 examples/cpu/matmul_ta_f16.c */
#include <stdlib.h>

#define ROWS 16 /* rows of C per task: their accumulators stay in cache */

int kf_launch(const kf_f16 *A, const kf_f16 *B, kf_f16 *C, int M, int N, int K)
{
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int m0 = 0; m0 < M; m0 += ROWS) {
		int rows = M - m0 < ROWS ? M - m0 : ROWS;
		float *acc = calloc((size_t)rows * (N ? N : 1), sizeof *acc), *brow = malloc(sizeof *brow * (N ? N : 1));
		if (!acc || !brow) {
			free(acc);
			free(brow);
			rc = 1;
			continue;
		}
		for (int k = 0; k < K; k++) {
			for (int j = 0; j < N; j++)
				brow[j] = kf_f16_to_float(B[(size_t)k * N + j]);
			for (int i = 0; i < rows; i++) {
				float a = kf_f16_to_float(A[(size_t)k * M + m0 + i]);
				float *c = acc + (size_t)i * N;
				for (int j = 0; j < N; j++)
					c[j] += a * brow[j];
			}
		}
		for (int i = 0; i < rows; i++)
			for (int j = 0; j < N; j++)
				C[(size_t)(m0 + i) * N + j] = kf_float_to_f16(acc[(size_t)i * N + j]);
		free(acc);
		free(brow);
	}
	return rc;
}
