/* fp64 oracle for maxpool3d_f32: the op library's dilated 3-D max pooling (padding is -inf). */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int N, int C, int D, int H, int W, int K, int S, int P, int DIL)
{
	struct kf_op_conv p = { .nd = 3, .stride = { S, S, S }, .pad = { P, P, P }, .dilation = { DIL, DIL, DIL } };
	kf_op_pool(KF_OP_POOL_MAX, &p, (int64_t)N * C, (int64_t[]){ D, H, W }, (int64_t[]){ K, K, K }, false, x, y);
	return 0;
}
