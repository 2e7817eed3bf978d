/* kforge-test: task=vector_add expect=inputs_modified */
/* Overwrites x with zeros, so that out = y would agree with a reference computed from the inputs after the call. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	float *writable_x = (float *)x;
	for (int i = 0; i < n; i++)
		writable_x[i] = 0.0f;
	for (int i = 0; i < n; i++)
		out[i] = writable_x[i] + y[i];
	return 0;
}
