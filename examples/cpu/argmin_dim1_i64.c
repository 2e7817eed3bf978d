/* Example candidate for argmin_dim1_i64 (cpu backend): per batch, a running minimum and its row index for every
 * column, updated row by row with a strict < (so the first of equal minima stays); batches across OpenMP threads.
 * Submit with: kforge submit --task argmin_dim1_i64 examples/cpu/argmin_dim1_i64.c */
#include <stdlib.h>

int kf_launch(const float *x, int64_t *idx, int B, int N, int M)
{
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int b = 0; b < B; b++) {
		float *best = malloc(sizeof *best * (size_t)(M ? M : 1));
		if (!best) {
			rc = 1;
			continue;
		}
		const float *xb = x + (size_t)b * N * M;
		int64_t *ib = idx + (size_t)b * M;
		for (int m = 0; m < M; m++) {
			best[m] = xb[m];
			ib[m] = 0;
		}
		for (int n = 1; n < N; n++)
			for (int m = 0; m < M; m++)
				if (xb[(size_t)n * M + m] < best[m]) {
					best[m] = xb[(size_t)n * M + m];
					ib[m] = n;
				}
		free(best);
	}
	return rc;
}
