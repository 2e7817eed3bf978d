/* fp64 oracle for conv3d_relu_avgpool (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, const double *cb, double *y, int N, int C, int D, int H, int W, int O)
{
	struct kf_op_conv conv = { .nd = 3, .stride = { 1, 1, 1 }, .pad = { 1, 1, 1 }, .dilation = { 1, 1, 1 }, .groups = 1 };
	struct kf_op_conv pool = { .nd = 3, .stride = { 2, 2, 2 }, .dilation = { 1, 1, 1 }, .groups = 1 };
	int64_t n = (int64_t)N * O * D * H * W;
	double *z = malloc(sizeof *z * (size_t)n);
	if (!z)
		return 1;
	kf_op_conv(&conv, N, C, (int64_t[]){ D, H, W }, O, (int64_t[]){ 3, 3, 3 }, x, w, cb, z);
	kf_op_map(KF_OP_RELU, n, z, 0, z);
	kf_op_pool(KF_OP_POOL_AVG, &pool, (int64_t)N * O, (int64_t[]){ D, H, W }, (int64_t[]){ 2, 2, 2 }, false, z, y);
	free(z);
	return 0;
}
