/* Example candidate for vector_add (cpu backend): out = x + y, split across OpenMP threads.
 * Submit with: kforge submit --task vector_add examples/cpu/vector_add.c */

int kf_launch(const float *x, const float *y, float *out, int n)
{
#pragma omp parallel for simd
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
