/* kforge-corpus: task=vector_add intended=correct */
/* OpenMP over blocks of eight, then the tail. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	int blocks = n / 8;
#pragma omp parallel for
	for (int b = 0; b < blocks; b++)
		for (int k = 0; k < 8; k++)
			out[b * 8 + k] = x[b * 8 + k] + y[b * 8 + k];
	for (int i = blocks * 8; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
