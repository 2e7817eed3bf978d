/* fp64 oracle for gemm_softmax (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *W, const double *b, double *y, int M, int N, int K)
{
	kf_op_gemm(1, M, N, K, 1, x, false, 0, W, true, 0, 0, y);
	for (int64_t i = 0; i < (int64_t)M * N; i++)
		y[i] += b[i % N];
	kf_op_softmax(M, N, 1, y, y);
	return 0;
}
