/* fp64 oracle for silu_mul_fp8_quant (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *scale, double *q, int M, int N)
{
	for (int64_t m = 0; m < M; m++)
		for (int64_t n = 0; n < N; n++)
			q[m * N + n] = kf_op_act(KF_OP_SILU, x[m * 2 * N + n], 0) * x[m * 2 * N + N + n];
	kf_op_quantize(KF_OP_FP8_E4M3, (int64_t)M * N, q, scale[0], q);
	return 0;
}
