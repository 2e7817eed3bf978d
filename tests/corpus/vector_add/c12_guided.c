/* kforge-corpus: task=vector_add intended=correct */
/* Guided scheduling. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for simd schedule(guided)
	for (int i = 0; i < n; i++)
		out[i] = y[i] + x[i];
	return 0;
}
