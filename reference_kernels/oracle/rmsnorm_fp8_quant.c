/* fp64 oracle for rmsnorm_fp8_quant (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *gamma, const double *scale, double *q, int rows, int cols, double eps)
{
	int64_t n = (int64_t)rows * cols;
	kf_op_rms_norm(rows, cols, x, gamma, eps, q);
	kf_op_quantize(KF_OP_FP8_E4M3, n, q, scale[0], q);
	return 0;
}
