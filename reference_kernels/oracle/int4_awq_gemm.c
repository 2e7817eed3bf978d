/* fp64 oracle for int4_awq_gemm (no CPU reference: the judge wraps this one): dequantise W, then an op-library GEMM. */
#include "oracle/ops.c"

#define GROUP 128
#define NIBBLE 16

int kf_oracle(const double *x, const double *qw, const double *scales, const double *zeros, double *y, int M, int N,
	      int K)
{
	int64_t groups = K / GROUP;
	double *w = malloc(sizeof *w * (size_t)N * K);
	if (!w)
		return 1;
	for (int64_t n = 0; n < N; n++)
		for (int64_t k = 0; k < K; k++) {
			int byte = (int)qw[(n * K + k) / 2];
			int code = k % 2 ? byte / NIBBLE : byte % NIBBLE;
			int64_t g = n * groups + k / GROUP;
			w[n * K + k] = (code - zeros[g]) * scales[g];
		}
	kf_op_gemm(1, M, N, K, 1, x, false, 0, w, true, 0, 0, y);
	free(w);
	return 0;
}
