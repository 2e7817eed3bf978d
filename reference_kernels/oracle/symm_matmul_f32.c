/* fp64 oracle for symm_matmul_f32: the symmetric matrix expanded from A's upper triangle, then one op-library GEMM. */
#include <stdlib.h>
#include "oracle/ops.c"

int kf_oracle(const double *A, const double *B, double *C, int N, int M)
{
	size_t n = (size_t)N * N;
	double *s = malloc(sizeof *s * (n ? n : 1));
	if (!s)
		return 1;
	for (int i = 0; i < N; i++)
		for (int k = 0; k < N; k++)
			s[(size_t)i * N + k] = i <= k ? A[(size_t)i * N + k] : A[(size_t)k * N + i];
	kf_op_gemm(1, N, M, N, 1, s, false, 0, B, false, 0, 0, C);
	free(s);
	return 0;
}
