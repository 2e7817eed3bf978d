/* CPU reference for rmsnorm_matmul: per row, rstd = 1 / sqrt(mean(x^2) + 1e-6) and the normalised row
 * x * rstd * gamma in fp32; then an fp32 accumulator row filled by axpys over the rows of W (widened once), rounded
 * once to bf16. */
#include <math.h>

#include "cpu/rows.h"

#define RMS_EPS 1e-6f
#define ROW_CHUNK 8

struct args {
	const kf_bf16 *X, *gamma;
	const float *w;
	kf_bf16 *Y;
	int N, K;
};

static void row(long long i, float *acc, const void *args)
{
	const struct args *p = args;
	float *xn = acc + p->N, ss = 0;
	widen_row(xn, p->X + (size_t)i * p->K, (size_t)p->K);
	for (int k = 0; k < p->K; k++)
		ss += xn[k] * xn[k];
	float rstd = 1.0f / sqrtf(ss / (float)p->K + RMS_EPS);
	for (int k = 0; k < p->K; k++)
		xn[k] *= rstd * kf_bf16_to_float(p->gamma[k]);
	for (int j = 0; j < p->N; j++)
		acc[j] = 0;
	axpy_rows(acc, xn, 1.0f, p->w, p->N, p->K, (size_t)p->N);
	for (int j = 0; j < p->N; j++)
		p->Y[(size_t)i * p->N + j] = kf_float_to_bf16(acc[j]);
}

int kf_launch(const kf_bf16 *X, const kf_bf16 *gamma, const kf_bf16 *W, kf_bf16 *Y, int M, int N, int K)
{
	float *w = malloc(((size_t)K * N + 1) * sizeof *w);
	if (!w)
		return 1;
	widen_parallel(w, W, (size_t)K * N);
	struct args p = { X, gamma, w, Y, N, K };
	int rc = for_each_row(M, (size_t)N + K, ROW_CHUNK, row, &p);
	free(w);
	return rc;
}
