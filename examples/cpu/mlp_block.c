/* Example candidate for mlp_block (cpu backend): the three weight matrices transposed to fp32 once, then per row the
 * RMSNorm, a dot product per activation (rounded to bf16, as the task says y reads it) and one per output; rows split
 * across OpenMP threads.
 * Submit with: kforge submit --task mlp_block examples/cpu/mlp_block.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *Wg, const kf_bf16 *Wu, const kf_bf16 *Wd,
	      kf_bf16 *act, kf_bf16 *y, int M, int Dm, int F)
{
	size_t w = (size_t)Dm * F;
	float *gt = malloc((3 * w + 1) * sizeof *gt);
	if (!gt)
		return 1;
	float *ut = gt + w, *dt = ut + w;
	int rc = 0;
#pragma omp parallel
	{
#pragma omp for
		for (int f = 0; f < F; f++)
			for (int k = 0; k < Dm; k++) {
				gt[(size_t)f * Dm + k] = kf_bf16_to_float(Wg[(size_t)k * F + f]);
				ut[(size_t)f * Dm + k] = kf_bf16_to_float(Wu[(size_t)k * F + f]);
				dt[(size_t)k * F + f] = kf_bf16_to_float(Wd[(size_t)f * Dm + k]);
			}
		float *buf = malloc(((size_t)Dm + (size_t)F + 1) * sizeof *buf);
		if (!buf) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for
		for (int i = 0; i < M; i++) {
			if (!buf)
				continue;
			float *xn = buf, *a = buf + Dm, ss = 0;
			for (int k = 0; k < Dm; k++) {
				xn[k] = kf_bf16_to_float(x[(size_t)i * Dm + k]);
				ss += xn[k] * xn[k];
			}
			float rstd = 1.0f / sqrtf(ss / Dm + 1e-6f);
			for (int k = 0; k < Dm; k++)
				xn[k] *= rstd * kf_bf16_to_float(gamma[k]);
			for (int f = 0; f < F; f++) {
				float g = 0, u = 0;
				for (int k = 0; k < Dm; k++) {
					g += xn[k] * gt[(size_t)f * Dm + k];
					u += xn[k] * ut[(size_t)f * Dm + k];
				}
				act[(size_t)i * F + f] = kf_float_to_bf16(g / (1.0f + expf(-g)) * u);
				a[f] = kf_bf16_to_float(act[(size_t)i * F + f]);
			}
			for (int n = 0; n < Dm; n++) {
				float acc = kf_bf16_to_float(x[(size_t)i * Dm + n]);
				for (int f = 0; f < F; f++)
					acc += a[f] * dt[(size_t)n * F + f];
				y[(size_t)i * Dm + n] = kf_float_to_bf16(acc);
			}
		}
		free(buf);
	}
	free(gt);
	return rc;
}
