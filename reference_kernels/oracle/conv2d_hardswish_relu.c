/* fp64 oracle for conv2d_hardswish_relu (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, const double *cb, double *y, int N, int C, int H, int W, int O)
{
	struct kf_op_conv p = { .nd = 2, .stride = { 1, 1 }, .dilation = { 1, 1 }, .groups = 1 };
	int64_t n = (int64_t)N * O * (H - 2) * (W - 2);
	kf_op_conv(&p, N, C, (int64_t[]){ H, W }, O, (int64_t[]){ 3, 3 }, x, w, cb, y);
	kf_op_map(KF_OP_HARDSWISH, n, y, 0, y);
	kf_op_map(KF_OP_RELU, n, y, 0, y);
	return 0;
}
