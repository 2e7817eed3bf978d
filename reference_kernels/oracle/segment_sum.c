/* fp64 oracle for segment_sum (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *offsets, double *y, int S, int T, int D)
{
	(void)T;
	for (int s = 0; s < S; s++) {
		int64_t lo = (int64_t)offsets[s], n = (int64_t)offsets[s + 1] - lo;
		kf_op_reduce(KF_OP_SUM, 1, n, D, x + lo * D, y + (size_t)s * D);
	}
	return 0;
}
