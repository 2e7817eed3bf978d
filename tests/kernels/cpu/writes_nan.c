/* kforge-test: task=vector_add expect=wrong_answer */
/* Writes the NaN a broken kernel computes (0/0): a check written as |out - ref| > tol never fires on NaN. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = (x[i] - x[i]) / (y[i] - y[i]);
	return 0;
}
