/* fp64 oracle for nvfp4_gemm (no CPU reference: the judge wraps this one): decode and scale both operands, then an
 * op-library GEMM. */
#include "oracle/ops.c"

#define BLOCK 16

static double *dequantize(const double *packed, const double *scales, int rows, int K)
{
	double *v = malloc(sizeof *v * (size_t)rows * K);
	if (!v)
		return NULL;
	for (int64_t i = 0; i < (int64_t)rows * K; i++) {
		double byte = packed[i / 2];
		v[i] = (i % 2 ? kf_op_fp4_hi(byte) : kf_op_fp4_lo(byte)) * scales[i / BLOCK];
	}
	return v;
}

int kf_oracle(const double *Aq, const double *sa, const double *Bq, const double *sb, double *C, int M, int N, int K,
	      double alpha)
{
	double *a = dequantize(Aq, sa, M, K), *b = dequantize(Bq, sb, N, K);
	int rc = !a || !b;
	if (!rc)
		kf_op_gemm(1, M, N, K, alpha, a, false, 0, b, true, 0, 0, C);
	free(a);
	free(b);
	return rc;
}
