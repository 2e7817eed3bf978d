/* fp64 oracle for conv_transpose2d (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, double *y, int N, int C, int H, int W, int O)
{
	struct kf_op_conv p = { .nd = 2, .stride = { 2, 2 }, .pad = { 1, 1 }, .dilation = { 1, 1 }, .groups = 1 };
	kf_op_conv_transpose(&p, N, C, (int64_t[]){ H, W }, O, (int64_t[]){ 4, 4 }, x, w, NULL, y);
	return 0;
}
