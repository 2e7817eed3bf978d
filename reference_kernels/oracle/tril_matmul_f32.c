/* fp64 oracle for tril_matmul_f32: the lower triangles of A and B copied out (zeros above the diagonal), one
 * op-library GEMM, then the upper triangle of C cleared. */
#include <stdlib.h>
#include "oracle/ops.c"

int kf_oracle(const double *A, const double *B, double *C, int N)
{
	size_t n = (size_t)N * N;
	double *la = calloc(n ? n : 1, sizeof *la), *lb = calloc(n ? n : 1, sizeof *lb);
	if (la && lb) {
		for (int i = 0; i < N; i++)
			for (int j = 0; j <= i; j++) {
				la[(size_t)i * N + j] = A[(size_t)i * N + j];
				lb[(size_t)i * N + j] = B[(size_t)i * N + j];
			}
		kf_op_gemm(1, N, N, N, 1, la, false, 0, lb, false, 0, 0, C);
		for (int i = 0; i < N; i++)
			for (int j = i + 1; j < N; j++)
				C[(size_t)i * N + j] = 0;
	}
	int rc = la && lb ? 0 : 1;
	free(la);
	free(lb);
	return rc;
}
