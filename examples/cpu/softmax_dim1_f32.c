/* Example candidate for softmax_dim1_f32 (cpu backend): per batch, three sweeps over the rows of x[b] with one
 * accumulator row (unit-stride): the column maxima, the exponentials written to y while summing them, and the
 * scaling of y by the reciprocal sums; batches across OpenMP threads.
 * Submit with: kforge submit --task softmax_dim1_f32 examples/cpu/softmax_dim1_f32.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const float *x, float *y, int B, int N, int M)
{
	int rc = 0;
#pragma omp parallel for reduction(| : rc)
	for (int b = 0; b < B; b++) {
		const float *xb = x + (size_t)b * N * M;
		float *yb = y + (size_t)b * N * M, *mx = malloc(sizeof *mx * (M ? (size_t)M : 1)),
		      *sum = calloc(M ? (size_t)M : 1, sizeof *sum);
		if (!mx || !sum) {
			free(mx);
			free(sum);
			rc = 1;
			continue;
		}
		for (int m = 0; m < M; m++)
			mx[m] = -INFINITY;
		for (int n = 0; n < N; n++)
			for (int m = 0; m < M; m++)
				mx[m] = fmaxf(mx[m], xb[(size_t)n * M + m]);
		for (int n = 0; n < N; n++)
			for (int m = 0; m < M; m++) {
				float e = expf(xb[(size_t)n * M + m] - mx[m]);
				yb[(size_t)n * M + m] = e;
				sum[m] += e;
			}
		for (int m = 0; m < M; m++)
			sum[m] = 1.0f / sum[m];
		for (int n = 0; n < N; n++)
			for (int m = 0; m < M; m++)
				yb[(size_t)n * M + m] *= sum[m];
		free(mx);
		free(sum);
	}
	return rc;
}
