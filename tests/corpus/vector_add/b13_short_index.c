/* kforge-corpus: task=vector_add intended=bug */
/* A 16-bit index: wraps past 32767 elements. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++) {
		short j = (short)i;
		out[i] = x[j < 0 ? -j : j] + y[i];
	}
	return 0;
}
