/* fp64 oracle for linear_attention, as the recurrence it is: with phi(x) = elu(x) + 1 (x + 1 for x > 0, exp(x)
 * otherwise), S_t = S_{t-1} + phi(k_t)^T v_t and z_t = z_{t-1} + phi(k_t) from zero,
 * o_t = phi(q_t) S_t / (phi(q_t) . z_t). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

static double phi(double x)
{
	return x > 0 ? x + 1 : exp(x);
}

int kf_oracle(const double *q, const double *k, const double *v, double *o, int BH, int L, int D)
{
	double *S = malloc((size_t)D * D * sizeof *S), *z = malloc((size_t)D * sizeof *z);
	if (!S || !z) {
		free(S);
		free(z);
		return 1;
	}
	for (int bh = 0; bh < BH; bh++) {
		for (int i = 0; i < D * D; i++)
			S[i] = 0;
		for (int d = 0; d < D; d++)
			z[d] = 0;
		for (int t = 0; t < L; t++) {
			const double *qt = q + ((size_t)bh * L + t) * D, *kt = k + ((size_t)bh * L + t) * D;
			const double *vt = v + ((size_t)bh * L + t) * D;
			double *ot = o + ((size_t)bh * L + t) * D;
			for (int d = 0; d < D; d++) {
				z[d] += phi(kt[d]);
				for (int e = 0; e < D; e++)
					S[(size_t)d * D + e] += phi(kt[d]) * vt[e];
			}
			double den = 0;
			for (int d = 0; d < D; d++)
				den += phi(qt[d]) * z[d];
			for (int e = 0; e < D; e++) {
				double num = 0;
				for (int d = 0; d < D; d++)
					num += phi(qt[d]) * S[(size_t)d * D + e];
				ot[e] = num / den;
			}
		}
	}
	free(S);
	free(z);
	return 0;
}
