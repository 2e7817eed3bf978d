/* CPU reference for swiglu_up: H = silu(X @ Wg) * (X @ Wu). Wg and Wu are widened to fp32 once; each row keeps two
 * fp32 accumulator rows (gate and up) filled by axpys over the rows of the weights, combined and rounded once. */
#include <math.h>

#include "cpu/rows.h"

#define ROW_CHUNK 8

struct args {
	const kf_bf16 *X;
	const float *wg, *wu;
	kf_bf16 *H;
	int N, K;
};

static void row(long long i, float *g, const void *args)
{
	const struct args *p = args;
	float *u = g + p->N, *x = u + p->N;
	widen_row(x, p->X + (size_t)i * p->K, (size_t)p->K);
	for (int j = 0; j < p->N; j++)
		g[j] = u[j] = 0;
	axpy_rows(g, x, 1.0f, p->wg, p->N, p->K, (size_t)p->N);
	axpy_rows(u, x, 1.0f, p->wu, p->N, p->K, (size_t)p->N);
	for (int j = 0; j < p->N; j++)
		p->H[(size_t)i * p->N + j] = kf_float_to_bf16(g[j] / (1.0f + expf(-g[j])) * u[j]);
}

int kf_launch(const kf_bf16 *X, const kf_bf16 *Wg, const kf_bf16 *Wu, kf_bf16 *H, int M, int N, int K)
{
	size_t kn = (size_t)K * N;
	float *wg = malloc((2 * kn + 1) * sizeof *wg);
	if (!wg)
		return 1;
	widen_parallel(wg, Wg, kn);
	widen_parallel(wg + kn, Wu, kn);
	struct args p = { X, wg, wg + kn, H, N, K };
	int rc = for_each_row(M, 2 * (size_t)N + K, ROW_CHUNK, row, &p);
	free(wg);
	return rc;
}
