/* kforge-test: task=vector_add expect=crash */
/* Writes through a null pointer the compiler cannot see is null. */
static float *volatile kf_nowhere;

int kf_launch(const float *x, const float *y, float *out, int n)
{
	*kf_nowhere = x[0];
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
