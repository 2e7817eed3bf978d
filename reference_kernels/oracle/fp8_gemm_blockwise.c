/* fp64 oracle for fp8_gemm_blockwise (no CPU reference: the judge wraps this one): dequantise both operands with
 * their block scales, then one op-library GEMM (the same sum as scaling each K group's partial sum). */
#include "oracle/ops.c"

#define GROUP 128

int kf_oracle(const double *A, const double *B, const double *sa, const double *sb, double *C, int M, int N, int K)
{
	int64_t groups = K / GROUP;
	double *a = malloc(sizeof *a * (size_t)M * K), *b = malloc(sizeof *b * (size_t)N * K);
	if (!a || !b) {
		free(a);
		free(b);
		return 1;
	}
	for (int64_t m = 0; m < M; m++)
		for (int64_t k = 0; k < K; k++)
			a[m * K + k] = A[m * K + k] * sa[m * groups + k / GROUP];
	for (int64_t n = 0; n < N; n++)
		for (int64_t k = 0; k < K; k++)
			b[n * K + k] = B[n * K + k] * sb[(n / GROUP) * groups + k / GROUP];
	kf_op_gemm(1, M, N, K, 1, a, false, 0, b, true, 0, 0, C);
	free(a);
	free(b);
	return 0;
}
