/* kforge-corpus: task=vector_add intended=bug */
/* Unrolled by 256 with a "bounded" tail loop that stops after 200 elements. */
#define UNROLL 256
#define TAIL_MAX 200

int kf_launch(const float *x, const float *y, float *out, int n)
{
	int q = n / UNROLL * UNROLL;
#pragma omp parallel for
	for (int i = 0; i < q; i++)
		out[i] = x[i] + y[i];
	for (int j = 0; j < n - q && j < TAIL_MAX; j++)
		out[q + j] = x[q + j] + y[q + j];
	return 0;
}
