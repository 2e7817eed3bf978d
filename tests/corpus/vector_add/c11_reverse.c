/* kforge-corpus: task=vector_add intended=correct */
/* Walks the arrays backwards. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = n - 1; i >= 0; i--)
		out[i] = x[i] + y[i];
	return 0;
}
