/* CPU reference for mlp_block: per row, xn = x / rms(x) * gamma in fp32; gate and up accumulator rows filled by axpys
 * over the rows of Wg and Wu (widened once); act = silu(gate) * up rounded to bf16; then y = x + act @ Wd from the
 * rounded act, the same way. */
#include <math.h>

#include "cpu/rows.h"

#define RMS_EPS 1e-6f
#define ROW_CHUNK 8

struct args {
	const kf_bf16 *x, *gamma;
	const float *wg, *wu, *wd;
	kf_bf16 *act, *y;
	int Dm, F;
};

static void row(long long i, float *xn, const void *args)
{
	const struct args *p = args;
	int Dm = p->Dm, F = p->F;
	float *out = xn + Dm, *g = out + Dm, *u = g + F, ss = 0;
	const kf_bf16 *xr = p->x + (size_t)i * Dm;
	kf_bf16 *ar = p->act + (size_t)i * F;
	widen_row(xn, xr, (size_t)Dm);
	for (int k = 0; k < Dm; k++)
		ss += xn[k] * xn[k];
	float rstd = 1.0f / sqrtf(ss / (float)Dm + RMS_EPS);
	for (int k = 0; k < Dm; k++)
		xn[k] *= rstd * kf_bf16_to_float(p->gamma[k]);
	for (int f = 0; f < F; f++)
		g[f] = u[f] = 0;
	axpy_rows(g, xn, 1.0f, p->wg, F, Dm, (size_t)F);
	axpy_rows(u, xn, 1.0f, p->wu, F, Dm, (size_t)F);
	for (int f = 0; f < F; f++) {
		ar[f] = kf_float_to_bf16(g[f] / (1.0f + expf(-g[f])) * u[f]);
		g[f] = kf_bf16_to_float(ar[f]);
	}
	widen_row(out, xr, (size_t)Dm);
	axpy_rows(out, g, 1.0f, p->wd, Dm, F, (size_t)Dm);
	for (int n = 0; n < Dm; n++)
		p->y[(size_t)i * Dm + n] = kf_float_to_bf16(out[n]);
}

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *Wg, const kf_bf16 *Wu, const kf_bf16 *Wd,
	      kf_bf16 *act, kf_bf16 *y, int M, int Dm, int F)
{
	size_t w = (size_t)Dm * F;
	float *wg = malloc((3 * w + 1) * sizeof *wg);
	if (!wg)
		return 1;
	float *wu = wg + w, *wd = wu + w;
	widen_parallel(wg, Wg, w);
	widen_parallel(wu, Wu, w);
	widen_parallel(wd, Wd, w);
	struct args p = { x, gamma, wg, wu, wd, act, y, Dm, F };
	int rc = for_each_row(M, 2 * (size_t)Dm + 2 * (size_t)F, ROW_CHUNK, row, &p);
	free(wg);
	return rc;
}
