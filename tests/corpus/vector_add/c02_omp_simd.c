/* kforge-corpus: task=vector_add intended=correct */
/* OpenMP threads, each loop body vectorised. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for simd
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
