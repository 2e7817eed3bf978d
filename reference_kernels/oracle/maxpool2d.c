/* fp64 oracle for maxpool2d (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int N, int C, int H, int W)
{
	struct kf_op_conv p = { .nd = 2, .stride = { 2, 2 }, .pad = { 1, 1 }, .dilation = { 1, 1 }, .groups = 1 };
	kf_op_pool(KF_OP_POOL_MAX, &p, (int64_t)N * C, (int64_t[]){ H, W }, (int64_t[]){ 3, 3 }, false, x, y);
	return 0;
}
