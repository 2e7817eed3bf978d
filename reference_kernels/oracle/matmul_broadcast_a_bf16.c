/* fp64 oracle for matmul_broadcast_a_bf16: the op library's batched GEMM with A broadcast (stride 0). */
#include "oracle/ops.c"

int kf_oracle(const double *A, const double *B, double *C, int batch, int M, int N, int K)
{
	kf_op_gemm(batch, M, N, K, 1, A, false, 0, B, false, (int64_t)K * N, 0, C);
	return 0;
}
