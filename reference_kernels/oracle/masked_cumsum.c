/* fp64 oracle for masked_cumsum (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *mask, double *out, int B, int N)
{
	kf_op_scan(KF_OP_SCAN_SUM, 0, B, N, 1, x, mask, out);
	return 0;
}
