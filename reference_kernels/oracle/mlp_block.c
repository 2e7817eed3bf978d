/* fp64 oracle for mlp_block: xn = x / sqrt(mean(x^2) + 1e-6) * gamma per row;
 * act = silu(xn @ Wg) * (xn @ Wu), silu(z) = z / (1 + exp(-z)); y = x + act @ Wd. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#define RMS_EPS 1e-6

int kf_oracle(const double *x, const double *gamma, const double *Wg, const double *Wu, const double *Wd,
	      double *act, double *y, int M, int Dm, int F)
{
	double *xn = malloc((size_t)Dm * sizeof *xn);
	if (!xn)
		return 1;
	for (int i = 0; i < M; i++) {
		const double *xr = x + (size_t)i * Dm;
		double *ar = act + (size_t)i * F;
		double ss = 0;
		for (int k = 0; k < Dm; k++)
			ss += xr[k] * xr[k];
		for (int k = 0; k < Dm; k++)
			xn[k] = xr[k] / sqrt(ss / Dm + RMS_EPS) * gamma[k];
		for (int f = 0; f < F; f++) {
			double g = 0, u = 0;
			for (int k = 0; k < Dm; k++) {
				g += xn[k] * Wg[(size_t)k * F + f];
				u += xn[k] * Wu[(size_t)k * F + f];
			}
			ar[f] = g / (1.0 + exp(-g)) * u;
		}
		for (int n = 0; n < Dm; n++) {
			double acc = xr[n];
			for (int f = 0; f < F; f++)
				acc += ar[f] * Wd[(size_t)f * Dm + n];
			y[(size_t)i * Dm + n] = acc;
		}
	}
	free(xn);
	return 0;
}
