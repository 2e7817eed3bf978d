/* fp64 oracle for gemm_sigmoid_sum (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *W, const double *b, double *y, int M, int N, int K)
{
	int64_t n = (int64_t)M * N;
	double *z = malloc(sizeof *z * (size_t)n);
	if (!z)
		return 1;
	kf_op_gemm(1, M, N, K, 1, x, false, 0, W, true, 0, 0, z);
	for (int64_t i = 0; i < n; i++)
		z[i] = kf_op_act(KF_OP_SIGMOID, z[i] + b[i % N], 0);
	kf_op_reduce(KF_OP_SUM, M, N, 1, z, y);
	free(z);
	return 0;
}
