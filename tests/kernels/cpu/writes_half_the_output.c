/* kforge-test: task=vector_add expect=unwritten_output */
/* Computes only the first half of out and leaves the rest as it found it. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n / 2; i++)
		out[i] = x[i] + y[i];
	return 0;
}
