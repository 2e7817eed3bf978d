/* kforge-test: task=vector_add expect=ok */
/* A correct, multi-threaded vector_add: OpenMP is allowed on the CPU backend and must pass. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for simd schedule(static)
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
