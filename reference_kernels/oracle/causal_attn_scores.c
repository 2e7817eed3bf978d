/* fp64 oracle for causal_attn_scores: P[bh, i, j] = exp(s_ij - m_i) / sum_{j' <= i} exp(s_ij' - m_i) for j <= i and
 * 0 for j > i, where s_ij = Q[bh, i, :] . K[bh, j, :] / sqrt(D) and m_i = max_{j <= i} s_ij. */
#include <math.h>
#include <stddef.h>

int kf_oracle(const double *Q, const double *K, double *P, int BH, int L, int D)
{
	for (int bh = 0; bh < BH; bh++)
		for (int i = 0; i < L; i++) {
			const double *q = Q + ((size_t)bh * L + i) * D;
			double *p = P + ((size_t)bh * L + i) * L;
			double max = -INFINITY, sum = 0;
			for (int j = 0; j < L; j++) {
				p[j] = 0;
				if (j > i)
					continue;
				const double *kr = K + ((size_t)bh * L + j) * D;
				for (int d = 0; d < D; d++)
					p[j] += q[d] * kr[d];
				p[j] /= sqrt((double)D);
				max = fmax(max, p[j]);
			}
			for (int j = 0; j <= i; j++)
				sum += exp(p[j] - max);
			for (int j = 0; j <= i; j++)
				p[j] = exp(p[j] - max) / sum;
		}
	return 0;
}
