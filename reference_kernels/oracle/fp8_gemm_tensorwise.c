/* fp64 oracle for fp8_gemm_tensorwise (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *A, const double *B, const double *scale_a, const double *scale_b, double *C, int M, int N,
	      int K)
{
	kf_op_gemm(1, M, N, K, scale_a[0] * scale_b[0], A, false, 0, B, true, 0, 0, C);
	return 0;
}
