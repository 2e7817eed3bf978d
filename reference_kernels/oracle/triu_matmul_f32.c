/* fp64 oracle for triu_matmul_f32: the upper triangles of A and B copied out (zeros below the diagonal), one op-library
 * GEMM, then the lower triangle of C cleared. */
#include <stdlib.h>
#include "oracle/ops.c"

int kf_oracle(const double *A, const double *B, double *C, int N)
{
	size_t n = (size_t)N * N;
	double *ua = calloc(n ? n : 1, sizeof *ua), *ub = calloc(n ? n : 1, sizeof *ub);
	if (ua && ub) {
		for (int i = 0; i < N; i++)
			for (int j = i; j < N; j++) {
				ua[(size_t)i * N + j] = A[(size_t)i * N + j];
				ub[(size_t)i * N + j] = B[(size_t)i * N + j];
			}
		kf_op_gemm(1, N, N, N, 1, ua, false, 0, ub, false, 0, 0, C);
		for (int i = 0; i < N; i++)
			for (int j = 0; j < i; j++)
				C[(size_t)i * N + j] = 0;
	}
	int rc = ua && ub ? 0 : 1;
	free(ua);
	free(ub);
	return rc;
}
