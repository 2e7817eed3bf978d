/* CPU reference for gemm_rowscale: C = (A @ B) * a_scale[m] * b_scale[n]. B is widened to fp32 once; each row of C
 * is an fp32 accumulator row filled by axpys over the rows of B, scaled and rounded once. */
#include "cpu/rows.h"

#define ROW_CHUNK 8

struct args {
	const kf_bf16 *A;
	const float *b, *a_scale, *b_scale;
	kf_bf16 *C;
	int N, K;
};

static void row(long long i, float *acc, const void *args)
{
	const struct args *p = args;
	float *a = acc + p->N;
	widen_row(a, p->A + (size_t)i * p->K, (size_t)p->K);
	for (int j = 0; j < p->N; j++)
		acc[j] = 0;
	axpy_rows(acc, a, 1.0f, p->b, p->N, p->K, (size_t)p->N);
	for (int j = 0; j < p->N; j++)
		p->C[(size_t)i * p->N + j] = kf_float_to_bf16(acc[j] * p->a_scale[i] * p->b_scale[j]);
}

int kf_launch(const kf_bf16 *A, const kf_bf16 *B, const float *a_scale, const float *b_scale, kf_bf16 *C, int M,
	      int N, int K)
{
	float *b = malloc(((size_t)K * N + 1) * sizeof *b);
	if (!b)
		return 1;
	widen_parallel(b, B, (size_t)K * N);
	struct args p = { A, b, a_scale, b_scale, C, N, K };
	int rc = for_each_row(M, (size_t)N + K, ROW_CHUNK, row, &p);
	free(b);
	return rc;
}
