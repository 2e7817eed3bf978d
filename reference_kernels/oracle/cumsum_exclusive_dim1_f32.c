/* fp64 oracle for cumsum_exclusive_dim1_f32: exclusive sum scan over axis 1, one op-library call. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int B, int N, int M)
{
	kf_op_scan(KF_OP_SCAN_SUM, KF_OP_SCAN_EXCLUSIVE, B, N, M, x, NULL, y);
	return 0;
}
