/* fp64 oracle for moe_combine (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *expert_out, const double *idx, const double *w, double *y, int T, int E, int K, int D)
{
	(void)E;
	for (int t = 0; t < T; t++)
		for (int d = 0; d < D; d++) {
			double acc = 0;
			for (int j = 0; j < K; j++)
				acc += w[(size_t)t * K + j] * expert_out[((size_t)idx[(size_t)t * K + j] * T + t) * D + d];
			y[(size_t)t * D + d] = acc;
		}
	return 0;
}
