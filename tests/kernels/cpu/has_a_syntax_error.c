/* kforge-test: task=vector_add expect=compile_error */
/* A kernel with a missing semicolon and an unclosed brace: the compiler must reject it. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i]
	return 0;
