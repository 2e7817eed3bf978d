/* kforge-test: task=vector_add expect=link_error */
/* Calls a function that exists nowhere: compiling succeeds, resolving the symbol must not. */
float kf_fast_add_from_nowhere(float a, float b);

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = kf_fast_add_from_nowhere(x[i], y[i]);
	return 0;
}
