/* Example candidate for logsumexp_dim1_f32 (cpu backend): two sweeps over the rows of x[b]: the column maxima, then
 * the sums of exp(x - max) (unit-stride, vectorisable), finished with max + log(sum); batches across OpenMP threads.
 * Submit with: kforge submit --task logsumexp_dim1_f32 examples/cpu/logsumexp_dim1_f32.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const float *x, float *y, int B, int N, int M)
{
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int b = 0; b < B; b++) {
		const float *xb = x + (size_t)b * N * M;
		float *mx = y + (size_t)b * M, *sum = calloc(M ? (size_t)M : 1, sizeof *sum);
		if (!sum) {
			rc = 1;
			continue;
		}
		for (int m = 0; m < M; m++)
			mx[m] = -INFINITY;
		for (int n = 0; n < N; n++)
			for (int m = 0; m < M; m++)
				mx[m] = fmaxf(mx[m], xb[(size_t)n * M + m]);
		for (int n = 0; n < N; n++)
			for (int m = 0; m < M; m++)
				sum[m] += expf(xb[(size_t)n * M + m] - mx[m]);
		for (int m = 0; m < M; m++)
			mx[m] += logf(sum[m]);
		free(sum);
	}
	return rc;
}
