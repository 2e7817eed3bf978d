/* fp64 oracle for l1_norm_rows_f32: each row's sum of |x| from the op library's reduction over an |x| copy, then the
 * division. */
#include <math.h>
#include <stdlib.h>
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	double *ax = calloc(n ? n : 1, sizeof *ax), *s = calloc(rows ? (size_t)rows : 1, sizeof *s);
	if (ax && s) {
		for (size_t i = 0; i < n; i++)
			ax[i] = fabs(x[i]);
		kf_op_reduce(KF_OP_SUM, rows, cols, 1, ax, s);
		for (size_t i = 0; i < n; i++)
			y[i] = x[i] / s[i / (size_t)cols];
	}
	int rc = ax && s ? 0 : 1;
	free(ax);
	free(s);
	return rc;
}
