/* kforge-corpus: task=vector_add intended=bug */
/* Unrolled by eight; the tail stores x instead of x + y. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	int q = n / 8 * 8;
#pragma omp parallel for
	for (int i = 0; i < q; i++)
		out[i] = x[i] + y[i];
	for (int i = q; i < n; i++)
		out[i] = x[i];
	return 0;
}
