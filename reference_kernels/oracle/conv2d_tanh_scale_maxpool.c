/* fp64 oracle for conv2d_tanh_scale_maxpool (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, const double *cb, const double *b, double *y, int N, int C, int H, int W,
	      int O, double scale)
{
	struct kf_op_conv conv = { .nd = 2, .stride = { 1, 1 }, .dilation = { 1, 1 }, .groups = 1 };
	struct kf_op_conv pool = { .nd = 2, .stride = { 2, 2 }, .dilation = { 1, 1 }, .groups = 1 };
	int64_t plane = (int64_t)(H - 2) * (W - 2), n = (int64_t)N * O * plane;
	double *z = malloc(sizeof *z * (size_t)n);
	if (!z)
		return 1;
	kf_op_conv(&conv, N, C, (int64_t[]){ H, W }, O, (int64_t[]){ 3, 3 }, x, w, cb, z);
	kf_op_map(KF_OP_TANH, n, z, 0, z);
	for (int64_t i = 0; i < n; i++)
		z[i] = z[i] * scale + b[i / plane % O];
	kf_op_pool(KF_OP_POOL_MAX, &pool, (int64_t)N * O, (int64_t[]){ H - 2, W - 2 }, (int64_t[]){ 2, 2 }, false, z, y);
	free(z);
	return 0;
}
