/* fp64 oracle for fp8_gemm (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *A, const double *B, double *C, int M, int N, int K, double scale)
{
	kf_op_gemm(1, M, N, K, scale, A, false, 0, B, false, 0, 0, C);
	return 0;
}
