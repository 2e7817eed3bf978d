/* fp64 oracle for maxpool1d_f16: the op library's dilated max pooling (padding is -inf). */
#include "oracle/ops.c"

int kf_oracle(const double *x, double *y, int N, int C, int L, int K, int S, int P, int DIL)
{
	struct kf_op_conv p = { .nd = 1, .stride = { S }, .pad = { P }, .dilation = { DIL } };
	kf_op_pool(KF_OP_POOL_MAX, &p, (int64_t)N * C, (int64_t[]){ L }, (int64_t[]){ K }, false, x, y);
	return 0;
}
