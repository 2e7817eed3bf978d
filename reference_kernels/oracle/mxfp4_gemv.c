/* fp64 oracle for mxfp4_gemv (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *Wq, const double *scales, const double *x, double *y, int N, int K)
{
	double *w = malloc(sizeof *w * (size_t)K);
	for (int n = 0; n < N; n++) {
		kf_op_mx_fp4_dequantize(K, 32, Wq + (size_t)n * K / 2, scales + (size_t)n * K / 32, w);
		kf_op_gemm(1, 1, 1, K, 1, w, false, 0, x, false, 0, 0, &y[n]);
	}
	free(w);
	return 0;
}
