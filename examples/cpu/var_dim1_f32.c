/* Example candidate for var_dim1_f32 (cpu backend): Welford's update per column, row by row over x[b] (unit-stride
 * inner loops), numerically safe at a large mean; batches across OpenMP threads.
 * Submit with: kforge submit --task var_dim1_f32 examples/cpu/var_dim1_f32.c */
#include <stdlib.h>

int kf_launch(const float *x, float *y, int B, int N, int M)
{
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int b = 0; b < B; b++) {
		const float *xb = x + (size_t)b * N * M;
		float *m2 = y + (size_t)b * M, *mean = calloc(M ? (size_t)M : 1, sizeof *mean);
		if (!mean) {
			rc = 1;
			continue;
		}
		for (int m = 0; m < M; m++)
			m2[m] = 0;
		for (int n = 0; n < N; n++) {
			const float *row = xb + (size_t)n * M, inv = 1.0f / (float)(n + 1);
			for (int m = 0; m < M; m++) {
				float d = row[m] - mean[m];
				mean[m] += d * inv;
				m2[m] += d * (row[m] - mean[m]);
			}
		}
		for (int m = 0; m < M; m++)
			m2[m] /= (float)N;
		free(mean);
	}
	return rc;
}
