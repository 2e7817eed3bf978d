/* fp64 oracle for avgpool3d_f32: the op library's 3-D average pooling, padding counted in the divisor. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int N, int C, int D, int H, int W, int K, int S, int P)
{
	struct kf_op_conv p = { .nd = 3, .stride = { S, S, S }, .pad = { P, P, P }, .dilation = { 1, 1, 1 } };
	kf_op_pool(KF_OP_POOL_AVG, &p, (int64_t)N * C, (int64_t[]){ D, H, W }, (int64_t[]){ K, K, K }, true, x, y);
	return 0;
}
