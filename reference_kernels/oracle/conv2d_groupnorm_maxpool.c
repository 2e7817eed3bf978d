/* fp64 oracle for conv2d_groupnorm_maxpool (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, const double *cb, const double *gamma, const double *beta, double *y,
	      int N, int C, int H, int W, int O, int G, double eps)
{
	struct kf_op_conv conv = { .nd = 2, .stride = { 1, 1 }, .pad = { 1, 1 }, .dilation = { 1, 1 }, .groups = 1 };
	struct kf_op_conv pool = { .nd = 2, .stride = { 2, 2 }, .dilation = { 1, 1 }, .groups = 1 };
	double *z = malloc(sizeof *z * (size_t)N * O * H * W);
	if (!z)
		return 1;
	kf_op_conv(&conv, N, C, (int64_t[]){ H, W }, O, (int64_t[]){ 3, 3 }, x, w, cb, z);
	kf_op_group_norm(N, O, (int64_t)H * W, G, z, gamma, beta, eps, z);
	kf_op_pool(KF_OP_POOL_MAX, &pool, (int64_t)N * O, (int64_t[]){ H, W }, (int64_t[]){ 2, 2 }, false, z, y);
	free(z);
	return 0;
}
