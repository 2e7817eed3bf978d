/* fp64 oracle for cumprod_rows_f32: inclusive product scan along each row, one op-library call. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int rows, int cols)
{
	kf_op_scan(KF_OP_SCAN_PROD, 0, rows, cols, 1, x, NULL, y);
	return 0;
}
