/* fp64 oracle for diag_matmul_f32: row i of B scaled by diag[i], written as the op library's batched GEMM of N
 * 1 x 1 by 1 x M products (batch i: C[i, :] = diag[i] * B[i, :]). */
#include "oracle/ops.c"

int kf_oracle(const double *diag, const double *B, double *C, int N, int M)
{
	kf_op_gemm(N, 1, M, 1, 1, diag, false, 1, B, false, M, 0, C);
	return 0;
}
