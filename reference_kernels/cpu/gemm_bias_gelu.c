/* CPU reference for gemm_bias_gelu: C = gelu(A @ B + bias), exact (erf) GELU. B is widened to fp32 once; each row of
 * C is an fp32 accumulator row starting from the bias, filled by axpys over the rows of B, then rounded once. */
#include <math.h>

#include "cpu/rows.h"

#define INV_SQRT2 0.70710678118654752f
#define ROW_CHUNK 8

struct args {
	const kf_bf16 *A, *bias;
	const float *b;
	kf_bf16 *C;
	int N, K;
};

static void row(long long i, float *acc, const void *args)
{
	const struct args *p = args;
	float *a = acc + p->N;
	widen_row(a, p->A + (size_t)i * p->K, (size_t)p->K);
	widen_row(acc, p->bias, (size_t)p->N);
	axpy_rows(acc, a, 1.0f, p->b, p->N, p->K, (size_t)p->N);
	for (int j = 0; j < p->N; j++)
		p->C[(size_t)i * p->N + j] = kf_float_to_bf16(0.5f * acc[j] * (1.0f + erff(acc[j] * INV_SQRT2)));
}

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, const kf_bf16 *bias, kf_bf16 *C, int M, int N, int K)
{
	float *b = malloc(((size_t)K * N + 1) * sizeof *b);
	if (!b)
		return 1;
	widen_parallel(b, B, (size_t)K * N);
	struct args p = { A, bias, b, C, N, K };
	int rc = for_each_row(M, (size_t)N + K, ROW_CHUNK, row, &p);
	free(b);
	return rc;
}
