/* CPU reference for mlp_block: per row, xn = x / rms(x) * gamma in fp32; gate and up accumulator rows filled by axpys
 * over the rows of Wg and Wu (widened once); act = silu(gate) * up rounded to bf16; then y = x + act @ Wd from the
 * rounded act, the same way. Rows split across OpenMP threads. */
#include <math.h>
#include <stdlib.h>

#define RMS_EPS 1e-6f

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *Wg, const kf_bf16 *Wu, const kf_bf16 *Wd,
	      kf_bf16 *act, kf_bf16 *y, int M, int Dm, int F)
{
	size_t w = (size_t)Dm * F;
	float *wg = malloc((3 * w + 1) * sizeof *wg);
	if (!wg)
		return 1;
	float *wu = wg + w, *wd = wu + w;
	int rc = 0;
#pragma omp parallel
	{
#pragma omp for schedule(static)
		for (size_t i = 0; i < w; i++) {
			wg[i] = kf_bf16_to_float(Wg[i]);
			wu[i] = kf_bf16_to_float(Wu[i]);
			wd[i] = kf_bf16_to_float(Wd[i]);
		}
		float *xn = malloc((2 * (size_t)Dm + 2 * (size_t)F + 1) * sizeof *xn);
		if (!xn) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(static)
		for (int i = 0; i < M; i++) {
			if (!xn)
				continue;
			float *out = xn + Dm, *g = out + Dm, *u = g + F, ss = 0;
			const kf_bf16 *xr = x + (size_t)i * Dm;
			for (int k = 0; k < Dm; k++) {
				xn[k] = kf_bf16_to_float(xr[k]);
				ss += xn[k] * xn[k];
			}
			float rstd = 1.0f / sqrtf(ss / (float)Dm + RMS_EPS);
			for (int k = 0; k < Dm; k++)
				xn[k] *= rstd * kf_bf16_to_float(gamma[k]);
			for (int f = 0; f < F; f++)
				g[f] = u[f] = 0;
			for (int k = 0; k < Dm; k++) {
				const float *gk = wg + (size_t)k * F, *uk = wu + (size_t)k * F;
#pragma omp simd
				for (int f = 0; f < F; f++) {
					g[f] += xn[k] * gk[f];
					u[f] += xn[k] * uk[f];
				}
			}
			for (int f = 0; f < F; f++) {
				act[(size_t)i * F + f] = kf_float_to_bf16(g[f] / (1.0f + expf(-g[f])) * u[f]);
				g[f] = kf_bf16_to_float(act[(size_t)i * F + f]);
			}
			for (int n = 0; n < Dm; n++)
				out[n] = kf_bf16_to_float(xr[n]);
			for (int f = 0; f < F; f++) {
				const float *df = wd + (size_t)f * Dm;
#pragma omp simd
				for (int n = 0; n < Dm; n++)
					out[n] += g[f] * df[n];
			}
			for (int n = 0; n < Dm; n++)
				y[(size_t)i * Dm + n] = kf_float_to_bf16(out[n]);
		}
		free(xn);
	}
	free(wg);
	return rc;
}
