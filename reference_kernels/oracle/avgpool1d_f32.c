/* fp64 oracle for avgpool1d_f32: the op library's average pooling, padding counted in the divisor. */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int N, int C, int L, int K, int S, int P)
{
	struct kf_op_conv p = { .nd = 1, .stride = { S }, .pad = { P }, .dilation = { 1 } };
	kf_op_pool(KF_OP_POOL_AVG, &p, (int64_t)N * C, (int64_t[]){ L }, (int64_t[]){ K }, true, x, y);
	return 0;
}
