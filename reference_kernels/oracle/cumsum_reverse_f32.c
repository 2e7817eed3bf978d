/* fp64 oracle for cumsum_reverse_f32: inclusive sum scan from the end of each row, one op-library call. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int rows, int cols)
{
	kf_op_scan(KF_OP_SCAN_SUM, KF_OP_SCAN_REVERSE, rows, cols, 1, x, NULL, y);
	return 0;
}
