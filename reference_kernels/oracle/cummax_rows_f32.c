/* fp64 oracle for cummax_rows_f32: the op library's inclusive max scan along each row. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int rows, int cols)
{
	kf_op_scan(KF_OP_SCAN_MAX, 0, rows, cols, 1, x, NULL, y);
	return 0;
}
