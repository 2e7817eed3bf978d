/* fp64 oracle for add_rmsnorm (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *res, const double *gamma, double *h, double *y, int rows, int cols,
	      double eps)
{
	for (int64_t i = 0; i < (int64_t)rows * cols; i++)
		h[i] = x[i] + res[i];
	kf_op_rms_norm(rows, cols, h, gamma, eps, y);
	return 0;
}
