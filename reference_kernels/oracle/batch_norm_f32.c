/* fp64 oracle for batch_norm_f32: the op library's batch norm with the batch's own statistics. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *gamma, const double *beta, double *y, int N, int C, int H, int W,
	      double eps)
{
	kf_op_batch_norm(N, C, (int64_t)H * W, x, NULL, NULL, gamma, beta, eps, y);
	return 0;
}
