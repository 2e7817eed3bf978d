/* kforge-corpus: task=vector_add intended=correct */
/* Unrolled by four, with a scalar loop for the tail. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	int i = 0;
	for (; i + 4 <= n; i += 4) {
		out[i] = x[i] + y[i];
		out[i + 1] = x[i + 1] + y[i + 1];
		out[i + 2] = x[i + 2] + y[i + 2];
		out[i + 3] = x[i + 3] + y[i + 3];
	}
	for (; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
