/* fp64 oracle for instance_norm (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int N, int C, int H, int W, double eps)
{
	kf_op_group_norm(N, C, (int64_t)H * W, C, x, NULL, NULL, eps, y);
	return 0;
}
