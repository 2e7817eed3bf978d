/* fp64 oracle for argmax_dim_i64 (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *idx, int B, int N, int M)
{
	kf_op_reduce(KF_OP_ARGMAX, B, N, M, x, idx);
	return 0;
}
