/* kforge-corpus: task=vector_add intended=correct */
/* Adds in double and rounds once to float. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for
	for (int i = 0; i < n; i++)
		out[i] = (float)((double)x[i] + (double)y[i]);
	return 0;
}
