/* fp64 oracle for conv1d_f32: the op library's dilated, strided 1-D convolution. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, double *y, int N, int C, int L, int O, int K, int S, int P, int DIL)
{
	struct kf_op_conv p = { .nd = 1, .stride = { S }, .pad = { P }, .dilation = { DIL }, .groups = 1 };
	kf_op_conv(&p, N, C, (int64_t[]){ L }, O, (int64_t[]){ K }, x, w, NULL, y);
	return 0;
}
