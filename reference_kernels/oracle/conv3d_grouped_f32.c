/* fp64 oracle for conv3d_grouped_f32: the op library's grouped, strided 3-D convolution. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, double *y, int N, int C, int D, int H, int W, int O, int G, int K, int S,
	      int P)
{
	struct kf_op_conv p = { .nd = 3, .stride = { S, S, S }, .pad = { P, P, P }, .dilation = { 1, 1, 1 }, .groups = G };
	kf_op_conv(&p, N, C, (int64_t[]){ D, H, W }, O, (int64_t[]){ K, K, K }, x, w, NULL, y);
	return 0;
}
