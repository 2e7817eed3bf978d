/* kforge-test: task=vector_add expect=policy_violation reason~=cblas_saxpy */
/* Calls BLAS under a name pasted together by the preprocessor, so no source text spells it: only what
 * the compiler and linker saw can tell (vector_add forbids vendor libraries). */
#define PASTE(a, b) a##b
#define JOIN(a, b) PASTE(a, b)
#define BLAS(name) JOIN(cbl, JOIN(as_, name))

void BLAS(saxpy)(int n, float alpha, const float *x, int incx, float *y, int incy);

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = y[i];
	BLAS(saxpy)(n, 1.0f, x, 1, out, 1);
	return 0;
}
