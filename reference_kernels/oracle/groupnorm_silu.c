/* fp64 oracle for groupnorm_silu (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *gamma, const double *beta, double *y, int N, int C, int H, int W, int G,
	      double eps)
{
	kf_op_group_norm(N, C, (int64_t)H * W, G, x, gamma, beta, eps, y);
	kf_op_map(KF_OP_SILU, (int64_t)N * C * H * W, y, 0, y);
	return 0;
}
