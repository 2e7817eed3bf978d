/* kforge-corpus: task=vector_add intended=bug */
/* Off by one: the loop stops before the last element. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for
	for (int i = 0; i < n - 1; i++)
		out[i] = x[i] + y[i];
	return 0;
}
