/* fp64 oracle for matmul_ta_f16: the op library's GEMM with A transposed. */
#include "oracle/ops.c"

int kf_oracle(const double *A, const double *B, double *C, int M, int N, int K)
{
	kf_op_gemm(1, M, N, K, 1, A, true, 0, B, false, 0, 0, C);
	return 0;
}
