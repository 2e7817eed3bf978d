/* fp64 oracle for cnn_block (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w1, const double *m1, const double *v1, const double *g1, const double *b1,
	      const double *w2, const double *m2, const double *v2, const double *g2, const double *b2, double *y, int N,
	      int C, int H, int W, int C1, int C2, double eps)
{
	struct kf_op_conv conv = { .nd = 2, .stride = { 1, 1 }, .pad = { 1, 1 }, .dilation = { 1, 1 }, .groups = 1 };
	struct kf_op_conv pool = { .nd = 2, .stride = { 2, 2 }, .dilation = { 1, 1 }, .groups = 1 };
	int64_t plane = (int64_t)H * W;
	double *z1 = malloc(sizeof *z1 * (size_t)(N * C1 * plane)), *z2 = malloc(sizeof *z2 * (size_t)(N * C2 * plane));
	int rc = !z1 || !z2;
	if (!rc) {
		kf_op_conv(&conv, N, C, (int64_t[]){ H, W }, C1, (int64_t[]){ 3, 3 }, x, w1, NULL, z1);
		kf_op_batch_norm(N, C1, plane, z1, m1, v1, g1, b1, eps, z1);
		kf_op_map(KF_OP_RELU, N * C1 * plane, z1, 0, z1);
		kf_op_conv(&conv, N, C1, (int64_t[]){ H, W }, C2, (int64_t[]){ 3, 3 }, z1, w2, NULL, z2);
		kf_op_batch_norm(N, C2, plane, z2, m2, v2, g2, b2, eps, z2);
		kf_op_map(KF_OP_RELU, N * C2 * plane, z2, 0, z2);
		kf_op_pool(KF_OP_POOL_MAX, &pool, (int64_t)N * C2, (int64_t[]){ H, W }, (int64_t[]){ 2, 2 }, false, z2, y);
	}
	free(z1);
	free(z2);
	return rc;
}
