/* fp64 oracle for argmin_dim1_i64: idx[b, m] = first argmin_n x[b, n, m], one op-library call. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *idx, int B, int N, int M)
{
	kf_op_reduce(KF_OP_ARGMIN, B, N, M, x, idx);
	return 0;
}
