/* kforge-corpus: task=vector_add intended=correct */
/* Dynamic scheduling in chunks of 4096. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for schedule(dynamic, 4096)
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
