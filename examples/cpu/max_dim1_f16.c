/* Example candidate for max_dim1_f16 (cpu backend): y[b, :] starts as row 0 of x[b] and takes the elementwise max
 * with each following row (in fp32, exact for fp16 values); batches split across OpenMP threads.
 * Submit with: kforge submit --task max_dim1_f16 examples/cpu/max_dim1_f16.c */
#include <stdlib.h>

int kf_launch(const kf_f16 *x, kf_f16 *y, int B, int N, int M)
{
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int b = 0; b < B; b++) {
		float *best = malloc(sizeof *best * (size_t)(M ? M : 1));
		if (!best) {
			rc = 1;
			continue;
		}
		const kf_f16 *xb = x + (size_t)b * N * M;
		for (int m = 0; m < M; m++)
			best[m] = kf_f16_to_float(xb[m]);
		for (int n = 1; n < N; n++)
			for (int m = 0; m < M; m++) {
				float v = kf_f16_to_float(xb[(size_t)n * M + m]);
				best[m] = v > best[m] ? v : best[m];
			}
		for (int m = 0; m < M; m++)
			y[(size_t)b * M + m] = kf_float_to_f16(best[m]);
		free(best);
	}
	return rc;
}
