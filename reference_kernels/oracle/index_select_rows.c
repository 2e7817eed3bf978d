/* fp64 oracle for index_select_rows (no CPU reference: the judge wraps this one), in op-library calls. */
#include "oracle/ops.c"

int kf_oracle(const double *x, const double *perm, double *y, int N, int D)
{
	for (int i = 0; i < N; i++)
		for (int d = 0; d < D; d++)
			y[(size_t)i * D + d] = x[(size_t)perm[i] * D + d];
	return 0;
}
