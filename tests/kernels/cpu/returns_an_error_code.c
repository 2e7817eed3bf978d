/* kforge-test: task=vector_add expect=runtime_error */
/* Computes the right answer but reports failure: a non-zero return must be honoured, not ignored. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 1;
}
