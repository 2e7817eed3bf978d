/* fp64 oracle for conv1d_gelu (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, const double *cb, double *y, int N, int C, int L, int O)
{
	struct kf_op_conv p = { .nd = 1, .stride = { 1 }, .pad = { 2 }, .dilation = { 1 }, .groups = 1 };
	kf_op_conv(&p, N, C, (int64_t[]){ L }, O, (int64_t[]){ 5 }, x, w, cb, y);
	kf_op_map(KF_OP_GELU, (int64_t)N * O * L, y, 0, y);
	return 0;
}
