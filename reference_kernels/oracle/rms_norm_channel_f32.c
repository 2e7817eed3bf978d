/* fp64 oracle for rms_norm_channel_f32: mean(x^2) over the channel axis from the op library's reduction of an x^2
 * copy, then the scaling. */
#include <math.h>
#include <stdlib.h>
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int N, int C, int H, int W, double eps)
{
	size_t plane = (size_t)H * W, n = (size_t)N * C * plane, pixels = (size_t)N * plane;
	double *sq = calloc(n ? n : 1, sizeof *sq), *ms = calloc(pixels ? pixels : 1, sizeof *ms);
	if (sq && ms) {
		for (size_t i = 0; i < n; i++)
			sq[i] = x[i] * x[i];
		kf_op_reduce(KF_OP_MEAN, N, C, (int64_t)plane, sq, ms);
		for (size_t i = 0; i < n; i++)
			y[i] = x[i] / sqrt(ms[i / (C * plane) * plane + i % plane] + eps);
	}
	int rc = sq && ms ? 0 : 1;
	free(sq);
	free(ms);
	return rc;
}
