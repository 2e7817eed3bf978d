/* kforge-test: task=vector_add expect=out_of_bounds reason~=before */
/* Right everywhere, but also clears the element just before out (an off-by-one in a loop that
 * starts at -1): the canary before every buffer sees it. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = -1; i < n; i++)
		out[i] = i >= 0 ? x[i] + y[i] : 0.0f;
	return 0;
}
