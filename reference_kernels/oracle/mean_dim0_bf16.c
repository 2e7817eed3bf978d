/* fp64 oracle for mean_dim0_bf16: y[d] = mean_n x[n, d], one op-library call (outer 1, axis N, inner D). */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int N, int D)
{
	kf_op_reduce(KF_OP_MEAN, 1, N, D, x, y);
	return 0;
}
