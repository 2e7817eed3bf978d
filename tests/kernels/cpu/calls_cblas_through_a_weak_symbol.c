/* kforge-test: task=vector_add expect=policy_violation reason~=cblas_saxpy */
/* Declares BLAS weak, so the link accepts the undefined reference (and resolves it to NULL where no
 * BLAS is loaded): only the linked object's imports show the call (vector_add forbids vendor libraries). */
__attribute__((weak)) void cblas_saxpy(int n, float alpha, const float *x, int incx, float *y, int incy);

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = y[i];
	if (cblas_saxpy)
		cblas_saxpy(n, 1.0f, x, 1, out, 1);
	else
		for (int i = 0; i < n; i++)
			out[i] += x[i];
	return 0;
}
