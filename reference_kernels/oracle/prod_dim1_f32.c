/* fp64 oracle for prod_dim1_f32: y[b, m] = prod_n x[b, n, m], one op-library call. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int B, int N, int M)
{
	kf_op_reduce(KF_OP_PROD, B, N, M, x, y);
	return 0;
}
