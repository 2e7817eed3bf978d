/* kforge-test: task=vector_add expect=out_of_bounds reason~=past */
/* Right everywhere, then stores a marker 128 bytes past the end of out: beyond the slack of the end
 * alignment, into the unmapped guard page after the buffer's region, where the runner faults at once. */
#define KF_PAST_BYTES 128

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	out[n + KF_PAST_BYTES / (int)sizeof(float)] = 1.0f;
	return 0;
}
