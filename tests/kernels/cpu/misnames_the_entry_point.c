/* kforge-test: task=vector_add expect=link_error */
/* Correct code under a misspelled entry point: the shim's call to kf_launch must fail to resolve. */
int kf_lanch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
