/* kforge-test: task=vector_add expect=inputs_modified */
/* Computes the right answer, then wipes x: the output is correct but the inputs were written. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	float *writable_x = (float *)x;
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	for (int i = 0; i < n; i++)
		writable_x[i] = 0.0f;
	return 0;
}
