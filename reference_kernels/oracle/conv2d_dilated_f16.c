/* fp64 oracle for conv2d_dilated_f16: the op library's convolution with per-axis padding and dilation. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *w, double *y, int N, int C, int H, int W, int O, int KH, int KW, int S,
	      int PH, int PW, int DH, int DW)
{
	struct kf_op_conv p = { .nd = 2, .stride = { S, S }, .pad = { PH, PW }, .dilation = { DH, DW }, .groups = 1 };
	kf_op_conv(&p, N, C, (int64_t[]){ H, W }, O, (int64_t[]){ KH, KW }, x, w, NULL, y);
	return 0;
}
