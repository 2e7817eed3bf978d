/* kforge-test: task=vector_add expect=compile_error */
/* Declares kf_launch with doubles and a long length; the force-included prototype must clash with it. */
int kf_launch(const double *x, const double *y, double *out, long n)
{
	for (long i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
