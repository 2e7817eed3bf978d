/* kforge-corpus: task=vector_add intended=correct */
/* One plain loop; the compiler vectorises it. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
