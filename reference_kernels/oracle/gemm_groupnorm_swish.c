/* fp64 oracle for gemm_groupnorm_swish (no CPU reference: the judge wraps this one), in op-library calls: the rows
 * are the group norm's samples, the features its channels (one spatial position). */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *W, const double *b, const double *gamma, const double *beta, double *y,
	      int M, int N, int K, int G, double eps)
{
	int64_t n = (int64_t)M * N;
	kf_op_gemm(1, M, N, K, 1, x, false, 0, W, true, 0, 0, y);
	for (int64_t i = 0; i < n; i++)
		y[i] += b[i % N];
	kf_op_group_norm(M, N, 1, G, y, gamma, beta, eps, y);
	kf_op_map(KF_OP_SILU, n, y, 0, y);
	return 0;
}
