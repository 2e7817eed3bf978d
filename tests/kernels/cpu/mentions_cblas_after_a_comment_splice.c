/* kforge-test: task=vector_add expect=ok */
/* A correct vector_add whose line comment ends in a backslash, so the next line, which names a BLAS
 * function, is still comment: the compiler sees no call, and neither may the policy. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	// one could call BLAS here \
	(cblas_saxpy would be faster)
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
