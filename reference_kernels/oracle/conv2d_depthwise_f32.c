/* fp64 oracle for conv2d_depthwise_f32: the op library's convolution with one group per channel. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, double *y, int N, int C, int H, int W, int K, int S, int P)
{
	struct kf_op_conv p = { .nd = 2, .stride = { S, S }, .pad = { P, P }, .dilation = { 1, 1 }, .groups = C };
	kf_op_conv(&p, N, C, (int64_t[]){ H, W }, C, (int64_t[]){ K, K }, x, w, NULL, y);
	return 0;
}
